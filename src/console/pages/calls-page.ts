import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { StatusBadge } from '../parts/status-badge';
import { TimeText } from '../parts/time-text';

const SHOWN = 200;

/** Tool calls as they end, newest first: when, which session, which tool, how it ended. Never arguments or results. */
export function CallsPage({ state }: { state: ConsoleState }) {
  const calls = state.calls.slice(-SHOWN).reverse();
  return html`<section aria-labelledby="calls-title">
    <h1 id="calls-title" tabindex="-1">Calls</h1>
    <p class="muted">The last ${SHOWN} calls, newest first, as they end. Arguments and results are never shown: the backend does not keep them.</p>
    ${
      calls.length === 0
        ? html`<p>No call yet.</p>`
        : html`<table>
            <caption class="sr-only">
              Recent tool calls
            </caption>
            <thead>
              <tr>
                <th scope="col">Time</th>
                <th scope="col">Tool</th>
                <th scope="col">Session</th>
                <th scope="col">Outcome</th>
                <th scope="col">Code</th>
                <th scope="col">Duration</th>
              </tr>
            </thead>
            <tbody>
              ${calls.map(
                (c) =>
                  html`<tr key=${c.invocation_id} aria-label=${`Call of ${c.exposed_name} from session ${c.session_id}`}>
                    <td><${TimeText} iso=${c.time} /></td>
                    <th scope="row">
                      <code>${c.exposed_name}</code> <a class="muted" href=${`#/plugins/${encodeURIComponent(c.plugin_id)}`}>${c.plugin_id}</a>
                    </th>
                    <td><code>${c.session_id}</code> <span class="muted">${c.task_id}</span></td>
                    <td><${StatusBadge} status=${c.outcome} /></td>
                    <td>${c.code ?? ''}</td>
                    <td>${c.duration_ms} ms</td>
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}
