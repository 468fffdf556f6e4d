import { useEffect, useState } from 'preact/hooks';
import { callApi } from '../api';
import type { LogRecord } from '../../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { ApiErrorView } from '../parts/api-error-view';
import { DataTable } from '../parts/data-table';
import { TimeText } from '../parts/time-text';

const HISTORY = 500;
const SHOWN_KEYS = new Set(['time', 'level', 'msg', 'plugin_id']);

/** A plugin's log: the records the backend kept, then each new one as it is written, newest last. */
export function LogPage({ state, token, pluginId }: { state: ConsoleState; token: string; pluginId: string }) {
  const [history, setHistory] = useState<LogRecord[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  // Live records from this point on join the history; those already in it are not shown twice.
  const [fromSeq] = useState(state.logSeq);
  useEffect(() => {
    let current = true;
    setHistory(null);
    callApi<LogRecord[]>(token, 'GET', `/api/v1/plugins/${encodeURIComponent(pluginId)}/logs?limit=${HISTORY}`).then(
      (records) => current && setHistory(records),
      (caught) => current && setError(caught),
    );
    return () => {
      current = false;
    };
  }, [token, pluginId]);

  const seen = new Set((history ?? []).map((r) => JSON.stringify(r)));
  const live = state.logs
    .filter((entry) => entry.seq > fromSeq && entry.record.plugin_id === pluginId && !seen.has(JSON.stringify(entry.record)))
    .map((entry) => entry.record);
  const records = [...(history ?? []), ...live];
  return html`<section aria-labelledby="log-title">
    <h1 id="log-title" tabindex="-1">Log of ${pluginId}</h1>
    <p><a href=${`#/plugins/${encodeURIComponent(pluginId)}`}>Back to ${pluginId}</a></p>
    <${ApiErrorView} error=${error} />
    ${history === null && !error && html`<p>Loading…</p>`}
    ${
      history !== null &&
      html`<${DataTable}
        class="log"
        live
        caption=${`Log records of ${pluginId}, oldest first`}
        columns=${['Time', 'Level', 'Message', 'Fields']}
        rows=${records}
        empty="No record yet."
        row=${(r: LogRecord, index: number) =>
          html`<tr key=${index} class=${`level-${r.level}`}>
            <td><${TimeText} iso=${r.time} /></td>
            <td>${r.level}</td>
            <td class="msg">${r.msg}</td>
            <td class="fields">${fields(r)}</td>
          </tr>`}
      />`
    }
  </section>`;
}

function fields(record: LogRecord): string {
  const rest = Object.entries(record).filter(([key]) => !SHOWN_KEYS.has(key));
  return rest.map(([key, value]) => `${key}=${typeof value === 'string' ? value : JSON.stringify(value)}`).join(' ');
}
