import { useEffect, useState } from 'preact/hooks';
import type { PluginStatus } from '../../api';
import { lastMinute, recentFailures, type ConsoleState } from '../console-state';
import { html } from '../html';
import { StatusBadge } from '../parts/status-badge';
import { TimeText } from '../parts/time-text';

const STATUSES: PluginStatus[] = ['active', 'error', 'needs_config', 'disabled', 'registered'];

/** Plugins by status, live sessions, calls and errors in the last minute, and the totals since the backend started. */
export function OverviewPage({ state }: { state: ConsoleState }) {
  const now = useNow(5000);
  const plugins = [...state.plugins.values()];
  const sessions = [...state.sessions.values()].filter((s) => s.status === 'live' || s.status === 'starting');
  const minute = lastMinute(state, now);
  const recentErrors = recentFailures(state);
  const { totals } = state;
  return html`<section aria-labelledby="overview-title">
    <h1 id="overview-title" tabindex="-1">Overview</h1>
    <div class="cards">
      <div class="card" aria-label="Plugins by status">
        <h2>Plugins</h2>
        <ul class="plain">
          ${STATUSES.map((status) => {
            const count = plugins.filter((p) => p.status === status).length;
            return (
              count > 0 &&
              html`<li>
                <a href="#/plugins"><${StatusBadge} status=${status} /> ${count}</a>
              </li>`
            );
          })}
          ${plugins.length === 0 && html`<li>No plugin installed.</li>`}
        </ul>
      </div>
      <div class="card" aria-label="Live sessions">
        <h2>Live sessions</h2>
        <p class="number"><a href="#/sessions">${sessions.length}</a></p>
      </div>
      <div class="card" aria-label="Calls in the last minute">
        <h2>Calls per minute</h2>
        <p class="number">${minute.calls}</p>
        <p>
          ${counted(minute.toolErrors, 'tool error')}, ${counted(minute.errors, 'error')}, ${minute.refused} refused by agentctl and
          ${counted(minute.restarts, 'restart')} in the last minute
        </p>
      </div>
      <div class="card" aria-label="Calls since the backend started">
        <h2>Since the backend started</h2>
        <p>
          ${counted(totals.total, 'call')}: ${totals.by_outcome.success} succeeded, ${counted(totals.by_outcome.tool_error, 'tool error')},
          ${counted(totals.by_outcome.error, 'error')}, ${totals.by_outcome.cancelled} cancelled, ${totals.by_outcome.refused} refused by agentctl
        </p>
        ${
          Object.keys(totals.by_code).length > 0 &&
          html`<ul class="plain codes">
            ${Object.entries(totals.by_code).map(([code, count]) => html`<li><code>${code}</code> ${count}</li>`)}
          </ul>`
        }
      </div>
    </div>
    <h2>Recent errors</h2>
    ${
      recentErrors.length === 0
        ? html`<p>No failed call.</p>`
        : html`<ul class="plain">
            ${recentErrors.map((c) => html`<li><${TimeText} iso=${c.time} /> <code>${c.exposed_name}</code> <strong>${c.code ?? 'tool error'}</strong> (session ${c.session_id})</li>`)}
          </ul>`
    }
  </section>`;
}

/** The time now, again every `everyMs`: the last minute moves on even when no call comes. */
function useNow(everyMs: number): number {
  const [now, setNow] = useState(Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), everyMs);
    return () => window.clearInterval(timer);
  }, [everyMs]);
  return now;
}

/** "1 error", "2 errors". */
function counted(count: number, noun: string): string {
  return `${count} ${noun}${count === 1 ? '' : 's'}`;
}
