import type { Call } from '../../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { DataTable } from '../parts/data-table';
import { StatusBadge } from '../parts/status-badge';
import { TimeText } from '../parts/time-text';

const SHOWN = 200;

/** Tool calls as they end, newest first: when, which session, which tool, how it ended. Never arguments or results. */
export function CallsPage({ state }: { state: ConsoleState }) {
  const calls = state.calls.slice(-SHOWN).reverse();
  return html`<section aria-labelledby="calls-title">
    <h1 id="calls-title" tabindex="-1">Calls</h1>
    <p class="muted">The last ${SHOWN} calls, newest first, as they end. Arguments and results are never shown: the backend does not keep them.</p>
    <${DataTable}
      caption="Recent tool calls"
      columns=${['Time', 'Tool', 'Session', 'Outcome', 'Code', 'Duration', 'Catalog revision', 'Approval']}
      rows=${calls}
      empty="No call yet."
      row=${(c: Call) =>
        html`<tr key=${c.invocation_id} aria-label=${`Call of ${c.exposed_name} from session ${c.session_id}`}>
          <td><${TimeText} iso=${c.time} /></td>
          <th scope="row"><code>${c.exposed_name}</code> <a class="muted" href=${`#/plugins/${encodeURIComponent(c.plugin_id)}`}>${c.plugin_id}</a></th>
          <td><code>${c.session_id}</code> <span class="muted">${c.task_id}</span></td>
          <td><${StatusBadge} status=${c.outcome} /></td>
          <td>${c.code ?? ''}</td>
          <td>${c.duration_ms} ms</td>
          <td>${c.catalog_revision}</td>
          <td>${c.approval === undefined || c.approval === 'none' ? '' : c.approved_by ? `${c.approval} (${c.approved_by})` : c.approval}</td>
        </tr>`}
    />
  </section>`;
}
