import type { CatalogSnapshot } from '../../domain/catalog';
import type { CallOutcome } from '../../domain/call-outcome';
import type { CallTotals } from '../invocation/call-events';
import type { PluginView } from '../plugins/plugin-view';
import type { PluginLogRecord } from '../ports/plugin-logs';
import type { SessionView } from '../sessions/session-view';

/** One ended tool call as the console shows it: never its arguments or its result. */
export interface CallView {
  invocation_id: string;
  /** When the call began (ISO 8601 UTC). */
  time: string;
  session_id: string;
  task_id: string;
  plugin_id: string;
  /** The plugin-local tool name, and the name agents call it by. */
  tool: string;
  exposed_name: string;
  outcome: CallOutcome;
  /** The §6 code of a failure; null for `success` and `tool_error`. */
  code: string | null;
  duration_ms: number;
}

/** What the console starts from: the whole state, then every change as a ConsoleEvent. */
export interface ConsoleSnapshot {
  plugins: PluginView[];
  sessions: SessionView[];
  catalog: CatalogSnapshot;
  /** The most recent calls, oldest first. */
  calls: CallView[];
  call_totals: { total: number; by_outcome: CallTotals['byOutcome']; by_code: CallTotals['byCode'] };
}

/** One change, as the live channel carries it (the event name is `type`, the data the rest). */
export type ConsoleEvent =
  | { type: 'plugin'; data: PluginView }
  | { type: 'plugin_removed'; data: { id: string } }
  | { type: 'catalog'; data: CatalogSnapshot }
  | { type: 'session'; data: SessionView }
  | { type: 'call'; data: CallView }
  | { type: 'log'; data: PluginLogRecord };
