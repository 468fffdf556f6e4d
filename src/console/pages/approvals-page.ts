import { useState } from 'preact/hooks';
import type { ApprovalRequest } from '../../api';
import { callApi } from '../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { ActionButton } from '../parts/action-button';
import { DataTable } from '../parts/data-table';
import { TimeText } from '../parts/time-text';

const decisionPath = (id: string, decision: 'approve' | 'deny') => `/api/v1/approvals/${encodeURIComponent(id)}/${decision}`;

/**
 * The calls an approval rule holds (docs/approvals.md), oldest first, live: each with what it is
 * (tool, plugin, session, workspace, profile, the arguments' hash — never the arguments) and
 * Approve and Deny, with an optional reason the denied agent is shown.
 */
export function ApprovalsPage({ state, token }: { state: ConsoleState; token: string }) {
  return html`<section aria-labelledby="approvals-title">
    <h1 id="approvals-title" tabindex="-1">Approvals</h1>
    <p>
      Calls an approval rule holds wait here for a decision. Each is decided once; one nobody decides ends when its approval timeout passes. The arguments are
      never shown: the SHA-256 of their canonical JSON identifies them.
    </p>
    <${DataTable}
      caption="Calls awaiting approval"
      columns=${['Tool', 'Plugin', 'Session', 'Workspace', 'Profile', 'Arguments (SHA-256)', 'Waiting since', 'Expires', 'Decision']}
      rows=${state.approvals}
      empty="No call awaits approval."
      row=${(r: ApprovalRequest) => html`<${ApprovalRow} key=${r.id} token=${token} request=${r} />`}
    />
  </section>`;
}

function ApprovalRow({ token, request }: { token: string; request: ApprovalRequest }) {
  const [reason, setReason] = useState('');
  const decide = (decision: 'approve' | 'deny') =>
    callApi(token, 'POST', decisionPath(request.id, decision), { json: reason.trim() === '' ? {} : { reason: reason.trim() } });
  const what = `${request.tool} for session ${request.session_id}`;
  return html`<tr aria-label=${`Approval request ${request.id}`}>
    <th scope="row"><code>${request.tool}</code></th>
    <td>${request.plugin_id}</td>
    <td><code>${request.session_id}</code></td>
    <td>${request.workspace_id}</td>
    <td>${request.profile}</td>
    <td><code title=${request.arguments_sha256}>${request.arguments_sha256.slice(0, 12)}…</code></td>
    <td><${TimeText} iso=${request.created_at} /></td>
    <td><${TimeText} iso=${request.expires_at} /></td>
    <td>
      <label>
        <span class="sr-only">Reason for ${what}</span>
        <input
          type="text"
          maxlength="1024"
          placeholder="Reason (optional)"
          value=${reason}
          onInput=${(e: Event) => setReason((e.target as HTMLInputElement).value)}
        />
      </label>
      <${ActionButton} label="Approve" name=${`Approve ${what}`} run=${() => decide('approve')} />
      <${ActionButton} label="Deny" name=${`Deny ${what}`} kind="danger" run=${() => decide('deny')} />
    </td>
  </tr>`;
}
