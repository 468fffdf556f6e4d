import { argumentsSha256 } from '../../domain/approval-binding';
import type { StoredApprovalRequest } from '../../domain/approvals';
import { InvocationError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { LinkedSession, SessionRecord } from '../../domain/session';
import type { CatalogService } from '../catalog/catalog-service';
import type { ApprovalRequests } from '../ports/approval-requests';
import type { AskClient, ClientApprovalAnswer } from '../ports/link-messages';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { Replication } from '../ports/replication';
import type { Settings } from '../settings';
import { errorMessage } from '../shared/error-code';

/** One call an operator rule holds. */
export interface HeldCall {
  invocationId: string;
  session: LinkedSession;
  pluginId: string;
  /** The exposed tool name, as the request shows it. */
  tool: string;
  arguments: unknown;
  /** The caller's cancellation: it withdraws the request. */
  signal: AbortSignal;
}

interface Waiter {
  request: StoredApprovalRequest;
  resolve(decidedBy: string): void;
  reject(error: InvocationError): void;
  /** The plugin's lifecycle identity when the call began waiting (docs/approvals.md). */
  lifecycle: string;
}

/** One call waiting for its agent's client (a `client` rule): nothing of it is stored. */
interface ClientWaiter {
  pluginId: string;
  sessionId: string;
  lifecycle: string;
  end(error: InvocationError): void;
}

/** How much longer than the approval timeout the desk waits for the agentctl's own answer (its trip back). */
const CLIENT_ANSWER_MARGIN_MS = 5000;

/** Where the desk hears of every session saved (the sessions' change feed), to withdraw the calls of one that ended. */
export interface SessionSaves {
  onChange(listener: (session: SessionRecord) => void): () => void;
}

/** How often the holding replica reads the store for decisions made on another one. */
const POLL_MS = 400;

/**
 * The calls waiting for an operator, or for their own client (askClient(), which stores
 * nothing), (docs/approvals.md). hold() stores the request (its
 * argument hash, never the arguments) and waits until it is decided, expires, or is withdrawn:
 * by the caller's cancellation, by the session going away, or by a disable, uninstall or
 * upgrade of the plugin (a configuration change or a crash leaves it waiting). A decision made
 * through this replica's API arrives at once (decided()); one made through another replica is
 * read from the store, which is polled only while some call waits. Every request ends in the
 * store as settled exactly once, whichever comes first.
 */
export class ApprovalDesk {
  private readonly waiting = new Map<string, Waiter>();
  private readonly clientWaiting = new Map<string, ClientWaiter>();
  private readonly listeners = new Set<() => void>();
  private timer: ReturnType<typeof setInterval> | undefined;
  private polling = false;

  constructor(
    private readonly store: ApprovalRequests,
    private readonly catalog: CatalogService,
    private readonly clock: Clock,
    private readonly settings: Settings,
    private readonly replication: Replication,
    private readonly logger: Logger,
    sessions: SessionSaves,
  ) {
    catalog.onRecords((records) => this.lifecycleChanged(records));
    sessions.onChange((session) => {
      if (session.status === 'stopped' || session.status === 'dead') {
        this.withdrawSession(session.session_id, new InvocationError('SESSION_NOT_LIVE', `the session is ${session.status}; the call did not run`));
      }
    });
  }

  /**
   * A backend start: the calls an earlier run of this backend held are gone, so their requests
   * are withdrawn (a replica withdraws only its own; others' calls still wait on them).
   */
  async start(): Promise<void> {
    const withdrawn = await this.store.withdrawApprovalRequests(this.replication.replicaId());
    if (withdrawn > 0) this.logger.info({ requests: withdrawn }, 'withdrew the approval requests an earlier run held');
  }

  /**
   * Registers a listener told each time a request this replica stores, or one it learns was
   * decided, changes the list of those awaiting a decision (the console's live view); returns
   * the remover. A listener that throws is dropped from that delivery.
   */
  onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  private changed(): void {
    for (const listener of [...this.listeners]) {
      try {
        listener();
      } catch {
        // an observer's fault must never reach a held call
      }
    }
  }

  /** Calls waiting for a decision to this plugin from this session: they count against its share. */
  waitingFrom(pluginId: string, sessionId: string): number {
    let count = 0;
    for (const waiter of this.waiting.values()) {
      if (waiter.request.plugin_id === pluginId && waiter.request.session_id === sessionId) count += 1;
    }
    for (const waiter of this.clientWaiting.values()) {
      if (waiter.pluginId === pluginId && waiter.sessionId === sessionId) count += 1;
    }
    return count;
  }

  /**
   * Waits for the answer of the call's own MCP client (docs/approvals.md, client mode), which
   * `ask` gets through the agentctl; nothing is stored. Resolves the answer (`timeout` when none
   * came within the approval timeout and the trip back; `unsupported`: an operator decides).
   * Rejects with InvocationError CANCELLED (the caller cancelled), SESSION_NOT_LIVE (the session
   * ended) or CANCELLED_BY_LIFECYCLE (the plugin was disabled, uninstalled or upgraded), as hold() does.
   */
  async askClient(call: HeldCall, ask: AskClient): Promise<ClientApprovalAnswer> {
    if (call.signal.aborted) throw new InvocationError('CANCELLED', 'the call was cancelled');
    let timer: ReturnType<typeof setTimeout> | undefined;
    let onAbort: (() => void) | undefined;
    try {
      return await Promise.race([
        ask({ tool: call.tool, pluginId: call.pluginId, timeoutMs: this.settings.approvalTimeoutMs }),
        new Promise<ClientApprovalAnswer>((resolve, reject) => {
          timer = setTimeout(() => resolve('timeout'), this.settings.approvalTimeoutMs + CLIENT_ANSWER_MARGIN_MS);
          onAbort = () => reject(new InvocationError('CANCELLED', 'the call was cancelled while it waited for approval'));
          call.signal.addEventListener('abort', onAbort, { once: true });
          this.clientWaiting.set(call.invocationId, {
            pluginId: call.pluginId,
            sessionId: call.session.session_id,
            lifecycle: lifecycleOf(this.catalog.committedPlugin(call.pluginId)),
            end: reject,
          });
        }),
      ]);
    } finally {
      clearTimeout(timer);
      if (onAbort) call.signal.removeEventListener('abort', onAbort);
      this.clientWaiting.delete(call.invocationId);
    }
  }

  /**
   * Waits for an operator's decision. Resolves with who approved it; rejects with
   * InvocationError APPROVAL_DENIED (the reason with it), APPROVAL_TIMEOUT, CANCELLED (the caller
   * cancelled), CANCELLED_BY_LIFECYCLE (the plugin was disabled, uninstalled or upgraded).
   */
  async hold(call: HeldCall): Promise<string> {
    if (call.signal.aborted) throw new InvocationError('CANCELLED', 'the call was cancelled');
    const created = this.clock.now();
    const request: StoredApprovalRequest = {
      id: call.invocationId,
      session_id: call.session.session_id,
      task_id: call.session.task_id,
      workspace_id: call.session.workspace_id,
      profile: call.session.profile,
      tool: call.tool,
      plugin_id: call.pluginId,
      arguments_sha256: argumentsSha256(call.arguments),
      created_at: new Date(created).toISOString(),
      expires_at: new Date(created + this.settings.approvalTimeoutMs).toISOString(),
      state: 'pending',
      decided_by: null,
      reason: null,
      holder: this.replication.replicaId(),
    };
    const decided = new Promise<string>((resolve, reject) => {
      this.waiting.set(request.id, { request, resolve, reject, lifecycle: lifecycleOf(this.catalog.committedPlugin(call.pluginId)) });
    });
    // It may end (cancelled, say) while the request is being stored, before it is awaited.
    decided.catch(() => undefined);
    const expiry = setTimeout(() => void this.end(request.id, 'expired'), this.settings.approvalTimeoutMs);
    const onAbort = (): void => void this.end(request.id, 'withdrawn', new InvocationError('CANCELLED', 'the call was cancelled while it waited for approval'));
    call.signal.addEventListener('abort', onAbort, { once: true });
    try {
      await this.store.addApprovalRequest(request);
      // Ended while it was being stored: the stored request must not be left pending.
      if (!this.waiting.has(request.id)) await this.store.settleApprovalRequest(request.id, { state: 'withdrawn', decided_by: null, reason: null });
      this.logger.info({ approval_id: request.id, session_id: request.session_id, plugin_id: request.plugin_id, tool: request.tool }, 'call awaits approval');
      this.changed();
      this.ensurePolling();
      return await decided;
    } catch (error) {
      // A store that refused the request: the call fails closed, as nobody can decide it.
      if (this.waiting.delete(request.id)) {
        throw new InvocationError('BACKEND_UNAVAILABLE', `the approval request could not be stored (${errorMessage(error)}); the call did not run`);
      }
      throw error;
    } finally {
      clearTimeout(expiry);
      call.signal.removeEventListener('abort', onAbort);
      this.waiting.delete(request.id);
      this.stopPollingWhenIdle();
      this.changed();
    }
  }

  /** A decision this replica's API made, or one the store shows: the waiting call learns it. */
  decided(request: StoredApprovalRequest): void {
    const waiter = this.waiting.get(request.id);
    if (!waiter) {
      // Held by another replica: this one's console still shows the list without it.
      this.changed();
      return;
    }
    this.waiting.delete(request.id);
    if (request.state === 'approved') waiter.resolve(request.decided_by ?? 'admin');
    else if (request.state === 'denied')
      waiter.reject(new InvocationError('APPROVAL_DENIED', `an operator denied the call${request.reason ? `: ${request.reason}` : ''}`));
    else if (request.state === 'expired') waiter.reject(timedOut(this.settings.approvalTimeoutMs));
    else waiter.reject(new InvocationError('CANCELLED', 'the approval request was withdrawn'));
  }

  /** Withdraws the waiting calls of the session (it stopped or its link went away). */
  withdrawSession(sessionId: string, error: InvocationError): void {
    for (const waiter of [...this.waiting.values()]) {
      if (waiter.request.session_id === sessionId) void this.end(waiter.request.id, 'withdrawn', error);
    }
    for (const waiter of [...this.clientWaiting.values()]) {
      if (waiter.sessionId === sessionId) waiter.end(error);
    }
  }

  /**
   * Ends the waiting call `id` with `state` in the store. If another settlement won (a
   * decision arrived first), that one decides the call.
   */
  private async end(id: string, state: 'expired' | 'withdrawn', error?: InvocationError): Promise<void> {
    const waiter = this.waiting.get(id);
    if (!waiter) return;
    try {
      const settled = await this.store.settleApprovalRequest(id, { state, decided_by: null, reason: null });
      if (settled && !settled.moved && (settled.request.state === 'approved' || settled.request.state === 'denied') && !error) {
        this.decided(settled.request);
        return;
      }
    } catch (failure) {
      this.logger.warn({ approval_id: id, reason: errorMessage(failure) }, 'could not settle an approval request in the store');
    }
    if (!this.waiting.delete(id)) return;
    waiter.reject(error ?? timedOut(this.settings.approvalTimeoutMs));
  }

  /** A disable, uninstall or upgrade of a plugin withdraws the calls waiting for it. */
  private lifecycleChanged(records: ReadonlyMap<string, PluginRecord>): void {
    for (const waiter of [...this.waiting.values()]) {
      const now = lifecycleOf(records.get(waiter.request.plugin_id));
      if (now === waiter.lifecycle) continue;
      const error = new InvocationError(
        'CANCELLED_BY_LIFECYCLE',
        `plugin ${waiter.request.plugin_id} was disabled, uninstalled or upgraded while the call waited for approval`,
      );
      void this.end(waiter.request.id, 'withdrawn', error);
    }
    for (const waiter of [...this.clientWaiting.values()]) {
      if (lifecycleOf(records.get(waiter.pluginId)) === waiter.lifecycle) continue;
      waiter.end(
        new InvocationError('CANCELLED_BY_LIFECYCLE', `plugin ${waiter.pluginId} was disabled, uninstalled or upgraded while the call waited for approval`),
      );
    }
  }

  private ensurePolling(): void {
    if (this.timer) return;
    this.timer = setInterval(() => void this.poll(), POLL_MS);
    this.timer.unref?.();
  }

  private stopPollingWhenIdle(): void {
    if (this.waiting.size > 0 || !this.timer) return;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Reads the store for the requests decided elsewhere. */
  private async poll(): Promise<void> {
    if (this.polling) return;
    this.polling = true;
    try {
      for (const id of [...this.waiting.keys()]) {
        const stored = await this.store.getApprovalRequest(id);
        if (stored && stored.state !== 'pending') this.decided(stored);
      }
    } catch (error) {
      this.logger.warn({ reason: errorMessage(error) }, 'could not read approval decisions from the store');
    } finally {
      this.polling = false;
    }
  }
}

function timedOut(timeoutMs: number): InvocationError {
  return new InvocationError('APPROVAL_TIMEOUT', `no decision came within the approval timeout (${timeoutMs} ms); the call did not run`);
}

/**
 * What a disable, uninstall or upgrade changes (`install --force` included) and a
 * configuration change or a crash does not.
 */
function lifecycleOf(record: PluginRecord | undefined): string {
  if (!record) return 'absent';
  return JSON.stringify([record.enabled, record.version, record.package_sha256, record.installed_at]);
}
