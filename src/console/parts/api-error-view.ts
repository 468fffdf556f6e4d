import type { ProfileInUseDetails, StartFailureDetails, Violation } from '../../api';
import { ApiError } from '../api';
import { html } from '../html';

/** A refusal shown where the action was, as the API said it: code, message, and each detail. */
export function ApiErrorView({ error }: { error: unknown }) {
  if (!error) return null;
  if (!(error instanceof ApiError)) return html`<div class="error" role="alert">${String(error)}</div>`;
  return html`<div class="error" role="alert"><strong>${error.code}</strong> ${error.message} ${details(error.details)}</div>`;
}

function details(value: unknown) {
  if (value === null || value === undefined) return null;
  if (Array.isArray(value) && value.every((v) => v && typeof v === 'object' && 'path' in v)) {
    return html`<ul class="violations">
      ${(value as Violation[]).map((v) => html`<li><code>${v.path}</code>: ${v.message}</li>`)}
    </ul>`;
  }
  const inUse = value as Partial<ProfileInUseDetails>;
  if (Array.isArray(inUse.sessions) && Array.isArray(inUse.rules)) {
    return html`<ul class="violations">
      ${inUse.sessions.length > 0 && html`<li>sessions: ${inUse.sessions.map((id, i) => html`${i > 0 ? ', ' : ''}<code>${id}</code>`)}</li>`}
      ${inUse.rules.length > 0 && html`<li>approval rules (by index): ${inUse.rules.join(', ')}</li>`}
    </ul>`;
  }
  const start = value as Partial<StartFailureDetails>;
  if (Array.isArray(start.stderr)) {
    return html`<div>exit code ${String(start.exit_code)}; its last stderr lines:</div>
      <pre class="stderr">${start.stderr.join('\n')}</pre>`;
  }
  return html`<pre>${JSON.stringify(value, null, 2)}</pre>`;
}
