import { exposedToolName } from '../../domain/naming';
import type { ApprovalDesk } from '../approvals/approval-desk';
import type { ListApprovals } from '../approvals/list-approvals';
import type { PluginRecord } from '../../domain/plugin-record';
import type { CatalogService } from '../catalog/catalog-service';
import type { CallEvents, CallTotals, ToolCallRecord } from '../invocation/call-events';
import type { ListPlugins } from '../plugins/list-plugins';
import type { PluginViews } from '../plugins/plugin-views';
import type { PluginLogs } from '../ports/plugin-logs';
import type { PluginRuntime } from '../ports/plugin-runtime';
import type { ListSessions } from '../sessions/list-sessions';
import type { SessionChanges } from '../sessions/session-changes';
import { sessionView } from '../sessions/session-view';
import type { Call, ConsoleEvent, ConsoleSnapshot } from '../../api';

export interface ConsoleFeedSources {
  catalog: CatalogService;
  calls: CallEvents;
  sessions: SessionChanges;
  logs: PluginLogs;
  listPlugins: ListPlugins;
  listSessions: ListSessions;
  /** How a record is shown, with the process serving it here. */
  views: PluginViews;
  /** Whose status events tell when that process changed (started, restarted, stopped). */
  processes: PluginRuntime;
  /** The call counters the metrics keep, so the console shows the numbers a scrape does. */
  callTotals: () => Promise<CallTotals>;
  toolPrefix: string;
  /** Where held calls wait, and the list of requests awaiting a decision. */
  desk: ApprovalDesk;
  listApprovals: ListApprovals;
  /**
   * Whether other replicas share the store (docs/operations.md §10), so hold calls this one
   * hears nothing of: the requests are then read again while a console listens.
   */
  sharedStore?: () => boolean;
}

/** While a console listens on a replica, how often it reads the requests other replicas hold. */
export const APPROVALS_POLL_MS = 1000;

export type ConsoleListener = (event: ConsoleEvent) => void;

/**
 * The console's live channel in one stream: the backend's own events (catalog commits and
 * revisions, saved sessions, ended calls, kept plugin log records) turned into the views the
 * API answers with. A plugin is told only when its view really changed: its record in a
 * commit, or the process serving it (`pid`, `tls`) at a status event of the runtime. The
 * approval requests are told when this replica's desk changes them and, on a shared store,
 * when a read every APPROVALS_POLL_MS while someone listens finds the list changed (a call
 * another replica holds, or one decided or withdrawn there: docs/approvals.md).
 */
export class ConsoleFeed {
  private readonly listeners = new Set<ConsoleListener>();
  /** Each plugin's view as last told, as JSON, to tell a real change from a commit that left it. */
  private readonly known = new Map<string, string>();
  /** Each plugin's record as last committed, to show it again when only its process changed. */
  private readonly records = new Map<string, PluginRecord>();
  /** The approval requests as last told, as JSON, so a read finding the same list tells nothing. */
  private toldApprovals: string | undefined;
  private approvalsTimer: ReturnType<typeof setInterval> | undefined;
  private readingApprovals = false;

  constructor(private readonly sources: ConsoleFeedSources) {
    sources.catalog.onRecords((records) => this.recordsCommitted(records));
    sources.catalog.onChange((snapshot) => this.tell({ type: 'catalog', data: snapshot }));
    sources.sessions.onChange((session) => this.tell({ type: 'session', data: sessionView(session) }));
    sources.calls.onCall((call) => this.tell({ type: 'call', data: this.callView(call) }));
    sources.logs.onRecord((record) => this.tell({ type: 'log', data: record }));
    sources.desk.onChange(() => void this.approvalsChanged());
    sources.processes.onStatus((event) => {
      const record = this.records.get(event.instance.pluginId);
      if (record) this.tellIfChanged(record);
    });
  }

  /** Registers a listener for every change from now on; returns the remover. */
  subscribe(listener: ConsoleListener): () => void {
    this.listeners.add(listener);
    if (!this.approvalsTimer && this.sources.sharedStore?.()) {
      this.approvalsTimer = setInterval(() => void this.approvalsChanged(true), APPROVALS_POLL_MS);
      this.approvalsTimer.unref?.();
    }
    return () => {
      this.listeners.delete(listener);
      if (this.listeners.size > 0) return;
      clearInterval(this.approvalsTimer);
      this.approvalsTimer = undefined;
      this.toldApprovals = undefined;
    };
  }

  /** The state now. A change made while it is read may also come as an event: apply the newer one. */
  async snapshot(): Promise<ConsoleSnapshot> {
    const [plugins, sessions, totals, approvals] = await Promise.all([
      this.sources.listPlugins.execute(),
      this.sources.listSessions.execute(),
      this.sources.callTotals(),
      this.sources.listApprovals.execute(),
    ]);
    return {
      plugins,
      sessions,
      catalog: this.sources.catalog.current(),
      calls: this.sources.calls.recentCalls().map((call) => this.callView(call)),
      call_totals: { total: totals.total, by_outcome: totals.byOutcome, by_code: totals.byCode },
      approvals,
    };
  }

  /**
   * The requests awaiting a decision, read again after a change (`polled`: on the timer, told
   * only when the list differs from the one last told); a store out of reach is told next time.
   */
  private async approvalsChanged(polled = false): Promise<void> {
    if (this.listeners.size === 0 || (polled && this.readingApprovals)) return;
    this.readingApprovals = true;
    try {
      const approvals = await this.sources.listApprovals.execute().catch(() => undefined);
      if (!approvals || this.listeners.size === 0) return;
      const json = JSON.stringify(approvals);
      if (polled && json === this.toldApprovals) return;
      this.toldApprovals = json;
      this.tell({ type: 'approvals', data: approvals });
    } finally {
      this.readingApprovals = false;
    }
  }

  private recordsCommitted(records: ReadonlyMap<string, PluginRecord>): void {
    for (const record of records.values()) {
      this.records.set(record.id, record);
      this.tellIfChanged(record);
    }
    for (const id of [...this.records.keys()]) {
      if (records.has(id)) continue;
      this.records.delete(id);
      this.known.delete(id);
      this.tell({ type: 'plugin_removed', data: { id } });
    }
  }

  private tellIfChanged(record: PluginRecord): void {
    const view = this.sources.views.local(record);
    const json = JSON.stringify(view);
    if (this.known.get(record.id) === json) return;
    this.known.set(record.id, json);
    this.tell({ type: 'plugin', data: view });
  }

  private callView(call: ToolCallRecord): Call {
    return {
      invocation_id: call.invocationId,
      time: call.startedAt,
      session_id: call.sessionId,
      task_id: call.taskId,
      plugin_id: call.pluginId,
      tool: call.localName,
      exposed_name: call.exposedName ?? exposedToolName(this.sources.toolPrefix, call.pluginId, call.localName),
      outcome: call.outcome,
      code: call.code,
      duration_ms: call.durationMs,
      catalog_revision: call.catalogRevision,
      ...(call.approval ? { approval: call.approval } : {}),
      ...(call.approvedBy ? { approved_by: call.approvedBy } : {}),
    };
  }

  private tell(event: ConsoleEvent): void {
    for (const listener of [...this.listeners]) {
      try {
        listener(event);
      } catch {
        // one console's fault must never reach the change that was told
      }
    }
  }
}
