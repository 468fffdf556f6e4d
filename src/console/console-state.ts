import type { ApprovalRequest, Call, CallTotals, Catalog, LiveEvent, LogRecord, PluginRecord, SessionRecord } from '../api';

/** How many ended calls and live log records the console holds. */
const KEEP_CALLS = 500;
const KEEP_LOGS = 2000;

export interface ConsoleState {
  plugins: Map<string, PluginRecord>;
  sessions: Map<string, SessionRecord>;
  catalog: Catalog | null;
  /** Oldest first. */
  calls: Call[];
  totals: CallTotals;
  /** Log records heard live, each with its place in the order heard (for the log page to join its history). */
  logs: Array<{ seq: number; record: LogRecord }>;
  logSeq: number;
  /** Plugin restarts heard live (a record whose restart_count went up), oldest first. */
  restarts: Array<{ plugin_id: string; time: string }>;
  /** The approval requests awaiting a decision, oldest first (docs/approvals.md). */
  approvals: ApprovalRequest[];
}

export const EMPTY_STATE: ConsoleState = {
  plugins: new Map(),
  sessions: new Map(),
  catalog: null,
  calls: [],
  totals: { total: 0, by_outcome: { success: 0, tool_error: 0, error: 0, cancelled: 0, refused: 0 }, by_code: {} },
  logs: [],
  logSeq: 0,
  restarts: [],
  approvals: [],
};

/** The state after one event of the live channel. An upsert older than what is held is ignored. */
export function applyEvent(state: ConsoleState, event: LiveEvent): ConsoleState {
  switch (event.type) {
    case 'snapshot': {
      const snapshot = event.data;
      return {
        ...state,
        plugins: new Map(snapshot.plugins.map((p) => [p.id, p])),
        sessions: new Map(snapshot.sessions.map((s) => [s.session_id, s])),
        catalog: snapshot.catalog,
        calls: snapshot.calls.slice(-KEEP_CALLS),
        totals: snapshot.call_totals,
        approvals: snapshot.approvals ?? [],
      };
    }
    case 'plugin': {
      const held = state.plugins.get(event.data.id);
      const plugins = upsert(state.plugins, event.data.id, event.data);
      if (plugins === state.plugins || !held || event.data.restart_count <= held.restart_count) return { ...state, plugins };
      const restarts = [...state.restarts, { plugin_id: event.data.id, time: event.data.updated_at }].slice(-KEEP_CALLS);
      return { ...state, plugins, restarts };
    }
    case 'plugin_removed': {
      const plugins = new Map(state.plugins);
      plugins.delete(event.data.id);
      return { ...state, plugins };
    }
    case 'catalog': {
      const catalog = event.data;
      const held = state.catalog;
      if (held && held.generation === catalog.generation && held.revision >= catalog.revision) return state;
      return { ...state, catalog };
    }
    case 'session':
      return { ...state, sessions: upsert(state.sessions, event.data.session_id, event.data) };
    case 'call':
      return { ...state, calls: [...state.calls, event.data].slice(-KEEP_CALLS), totals: counted(state.totals, event.data) };
    case 'log': {
      const logSeq = state.logSeq + 1;
      return { ...state, logSeq, logs: [...state.logs, { seq: logSeq, record: event.data }].slice(-KEEP_LOGS) };
    }
    case 'approvals':
      return { ...state, approvals: event.data };
    default:
      return state;
  }
}

function upsert<T extends { updated_at: string }>(map: Map<string, T>, key: string, value: T): Map<string, T> {
  const held = map.get(key);
  if (held && held.updated_at > value.updated_at) return map;
  const next = new Map(map);
  next.set(key, value);
  return next;
}

function counted(totals: CallTotals, call: Call): CallTotals {
  const byCode = call.code ? { ...totals.by_code, [call.code]: (totals.by_code[call.code] ?? 0) + 1 } : totals.by_code;
  return { total: totals.total + 1, by_outcome: { ...totals.by_outcome, [call.outcome]: (totals.by_outcome[call.outcome] ?? 0) + 1 }, by_code: byCode };
}

/** What the overview counts over the last minute before `now` (ms since the epoch). */
export interface MinuteCounts {
  calls: number;
  /** Calls whose tool answered an error result (`tool_error`). */
  toolErrors: number;
  /** Calls that failed before or around the tool (`error`): refusals, timeouts, crashes. */
  errors: number;
  /** Calls agentctl refused itself (`refused`): an unknown tool, arguments its schema rejects. */
  refused: number;
  restarts: number;
}

export function lastMinute(state: ConsoleState, now: number): MinuteCounts {
  const within = (time: string) => now - Date.parse(time) <= 60_000;
  const calls = state.calls.filter((c) => within(c.time));
  return {
    calls: calls.length,
    toolErrors: calls.filter((c) => c.outcome === 'tool_error').length,
    errors: calls.filter((c) => c.outcome === 'error').length,
    refused: calls.filter((c) => c.outcome === 'refused').length,
    restarts: state.restarts.filter((r) => within(r.time)).length,
  };
}

/** The last `count` failed calls, newest first: a tool's error result and a call agentctl refused count as failed too. */
export function recentFailures(state: ConsoleState, count = 5): Call[] {
  return state.calls
    .filter((c) => c.outcome === 'error' || c.outcome === 'tool_error' || c.outcome === 'refused')
    .slice(-count)
    .reverse();
}
