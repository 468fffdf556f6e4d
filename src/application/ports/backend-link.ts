import type { SessionIdentity } from '../../domain/session';
import type { AgentctlHello, PluginToolAnswer, PluginToolRequest, RefusedCallReport } from './link-messages';
import type { PushAnswer } from './catalog-publisher';

/** What agentctl answers a `catalog.push`: the §5 outcome, or why the push is malformed. */
export type PushReply = { ok: true; answer: PushAnswer } | { ok: false; reason: string };

/**
 * agentctl's side of the docs/agentctl.md §7 link to the backend.
 *
 * Once connect() is called the link keeps itself connected until close(): it dials, sends
 * `agentctl.hello` first on every connection, and redials with backoff when the connection
 * drops. Requests are never queued or re-sent: while the link is down they fail at once.
 */
export abstract class BackendLink {
  private readonly connectedListeners = new Set<(session: SessionIdentity) => void>();
  private pushHandler: ((payload: unknown) => PushReply) | null = null;

  /**
   * Starts connecting (and reconnecting) in the background; returns at once. `hello` is sent
   * as the first request of every connection.
   */
  abstract connect(hello: AgentctlHello): void;

  /**
   * Says `agentctl.goodbye` when connected (a clean exit: the backend marks the session dead
   * at once), waiting at most `timeoutMs` for the answer; never throws.
   */
  abstract goodbye(timeoutMs: number): Promise<void>;

  /** Stops reconnecting and closes the connection; pending calls fail with BACKEND_UNAVAILABLE. Idempotent. */
  abstract close(): Promise<void>;

  /** True between a successful hello and the next drop. */
  abstract isConnected(): boolean;

  /**
   * Asks for the full §4 snapshot. Resolves with the payload as received (the caller checks it,
   * since a malformed snapshot is the caller's rule to apply). Throws InvocationError
   * BACKEND_UNAVAILABLE when the link is down, drops, or the answer does not come in time.
   */
  abstract listPluginTools(): Promise<unknown>;

  /**
   * Makes one plugin tool call, never re-sent. A plugin's own error result resolves
   * (`isError: true`). Throws InvocationError: the §6 code the backend answered;
   * BACKEND_UNAVAILABLE when the link is down (`not sent`) or drops while the call is pending
   * (`… the call may have run`), or when no answer comes within the request timeout;
   * CANCELLED when `signal` aborts, after the backend was told to cancel. `onHeld` is told
   * `true` when the backend holds the call for an approval and `false` once it may proceed
   * (docs/approvals.md); a link that cannot tell never calls it.
   */
  abstract invokePluginTool(request: PluginToolRequest, signal?: AbortSignal, onHeld?: (held: boolean) => void): Promise<PluginToolAnswer>;

  /**
   * Tells the backend of a call agentctl refused itself, fire and forget: nothing is awaited,
   * any answer is dropped (a backend that does not know the action answers an error, which is
   * dropped too), and while the link is down the report is dropped. Never throws.
   */
  abstract reportRefusedCall(report: RefusedCallReport): void;

  /**
   * Registers a listener called after each successful hello with the backend's answer (the
   * authoritative session identity); agentctl pulls the catalog then. Returns the remover.
   */
  onConnected(listener: (session: SessionIdentity) => void): () => void {
    this.connectedListeners.add(listener);
    return () => this.connectedListeners.delete(listener);
  }

  /** Sets who answers the backend's `catalog.push` (a §4 snapshot or a delta, as received). */
  onPush(handler: (payload: unknown) => PushReply): void {
    this.pushHandler = handler;
  }

  /** For adapters: tells every listener that a connection is up. */
  protected emitConnected(session: SessionIdentity): void {
    for (const listener of [...this.connectedListeners]) listener(session);
  }

  /** For adapters: the answer to a `catalog.push` received on the link. */
  protected answerPush(payload: unknown): PushReply {
    if (!this.pushHandler) return { ok: false, reason: 'this agentctl takes no pushes yet' };
    return this.pushHandler(payload);
  }
}
