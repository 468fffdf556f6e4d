import type { SessionRecord } from '../../api';
import { callApi } from '../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { ActionButton } from '../parts/action-button';
import { DataTable } from '../parts/data-table';
import { StatusBadge } from '../parts/status-badge';
import { TimeText } from '../parts/time-text';

/** Every session, newest first, with its workspace, profile and status; a session that is not stopped can be stopped. */
export function SessionsPage({ state, token }: { state: ConsoleState; token: string }) {
  const sessions = [...state.sessions.values()].sort((a, b) => (a.created_at < b.created_at ? 1 : -1));
  return html`<section aria-labelledby="sessions-title">
    <h1 id="sessions-title" tabindex="-1">Sessions</h1>
    <${DataTable}
      caption="Task sessions"
      columns=${['Session', 'Task', 'Workspace', 'Profile', 'Surface', 'Status', 'Last linked', 'Started', 'Actions']}
      rows=${sessions}
      empty="No session yet."
      row=${(s: SessionRecord) =>
        html`<tr key=${s.session_id} aria-label=${`Session ${s.session_id}`}>
          <th scope="row"><code>${s.session_id}</code></th>
          <td>${s.task_id}</td>
          <td>${s.workspace_id}</td>
          <td>${s.profile}</td>
          <td>${s.surface}</td>
          <td><${StatusBadge} status=${s.status} />${s.launched ? '' : html` <span class="muted">(started elsewhere)</span>`}</td>
          <td><${TimeText} iso=${s.last_linked_at} /></td>
          <td><${TimeText} iso=${s.created_at} /></td>
          <td>
            ${
              s.status !== 'stopped' &&
              html`<${ActionButton}
                label="Stop"
                name=${`Stop session ${s.session_id}`}
                kind="danger"
                run=${() => callApi(token, 'DELETE', `/api/v1/sessions/${encodeURIComponent(s.session_id)}`)}
              />`
            }
          </td>
        </tr>`}
    />
  </section>`;
}
