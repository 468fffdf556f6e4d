import type { ApprovalRequest } from './approvals';
import type { CallOutcome, Catalog } from './domain-shapes';
import type { LogRecord, PluginRecord } from './plugins';
import type { SessionRecord } from './sessions';

/** One ended tool call: when and where, never its arguments or its result. */
export interface Call {
  invocation_id: string;
  /** When the call began. */
  time: string;
  session_id: string;
  task_id: string;
  plugin_id: string;
  /** The plugin-local tool name. */
  tool: string;
  exposed_name: string;
  outcome: CallOutcome;
  /** The failure's code; null for `success` and `tool_error`. */
  code: string | null;
  duration_ms: number;
  /** The catalog revision the call's checks ran at. */
  catalog_revision: number;
  /** Who let it through when an approval rule held it (`none`, `client`, `operator`), and for `operator` who approved. */
  approval?: string;
  approved_by?: string;
}

/** The calls ended since the backend started, as `toolport_tool_calls_total` counts them. */
export interface CallTotals {
  total: number;
  by_outcome: Record<CallOutcome, number>;
  by_code: Record<string, number>;
}

/** The live channel's first event: the whole state at that moment. */
export interface ConsoleSnapshot {
  plugins: PluginRecord[];
  sessions: SessionRecord[];
  catalog: Catalog;
  /** The most recent ended calls, oldest first. */
  calls: Call[];
  call_totals: CallTotals;
  /** The approval requests awaiting a decision, oldest first. */
  approvals: ApprovalRequest[];
}

/** One change after the snapshot, named by its event type (docs/http-api.md §10). */
export type ConsoleEvent =
  | { type: 'plugin'; data: PluginRecord }
  | { type: 'plugin_removed'; data: { id: string } }
  | { type: 'catalog'; data: Catalog }
  | { type: 'session'; data: SessionRecord }
  | { type: 'call'; data: Call }
  | { type: 'log'; data: LogRecord }
  | { type: 'approvals'; data: ApprovalRequest[] };

/** Every event of `GET /api/v1/events`, as a reader receives them: the snapshot first, then changes. */
export type LiveEvent = { type: 'snapshot'; data: ConsoleSnapshot } | ConsoleEvent;
