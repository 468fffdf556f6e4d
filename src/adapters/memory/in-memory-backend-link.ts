import type { AgentctlRequestHandler } from '../../application/sessions/agentctl-requests';
import type { LinkCredentials } from '../../application/link/link-credentials';
import type { AgentctlHello, PluginToolAnswer, PluginToolRequest, RefusedCallReport } from '../../application/ports/link-messages';
import { BackendLink, type InvokeHooks, type PushReply } from '../../application/ports/backend-link';
import { InvocationError } from '../../domain/errors';
import type { LinkedSession, SessionIdentity } from '../../domain/session';

interface Pending {
  reject(error: InvocationError): void;
}

/**
 * A BackendLink with no socket, for fast tests: it drives the backend's inbound port (the
 * real AgentctlRequests, or a test's stand-in) for the session it authenticates as, with the
 * same proof exchange as a socket (its credentials say which). setReachable(false) behaves like a dropped connection (pending calls end at once, new ones fail); setReachable(true) reconnects.
 * Payloads are copied through JSON so neither side can share objects with the other.
 */
export class InMemoryBackendLink extends BackendLink {
  private hello: AgentctlHello | null = null;
  /** The session as the backend bound it at authentication (as a socket link's endpoint holds it). */
  private session: LinkedSession | null = null;
  private reachable = true;
  private connected = false;
  private epoch = 0;
  private readonly pending = new Set<Pending>();
  constructor(
    private readonly backend: AgentctlRequestHandler,
    private readonly credentials: LinkCredentials,
    private readonly requestTimeoutMs = 10_000,
  ) {
    super();
  }

  connect(hello: AgentctlHello): void {
    this.hello = hello;
    void this.dial();
  }

  async goodbye(): Promise<void> {
    if (this.connected && this.session) await this.backend.goodbye(this.session).catch(() => undefined);
  }

  /** Delivers a `catalog.push` as the backend would over a real link; answers what agentctl answered. */
  deliverPush(payload: unknown): PushReply {
    return this.answerPush(copy(payload));
  }

  async close(): Promise<void> {
    this.hello = null;
    this.drop('link closed');
  }

  isConnected(): boolean {
    return this.connected;
  }

  /** Simulates the backend going away (false) or coming back (true). */
  setReachable(reachable: boolean): void {
    this.reachable = reachable;
    if (!reachable) this.drop('connection to the backend dropped');
    else void this.dial();
  }

  listPluginTools(): Promise<unknown> {
    return this.request((session) => this.backend.snapshot(session).then(copy), undefined);
  }

  invokePluginTool(request: PluginToolRequest, signal?: AbortSignal, hooks?: InvokeHooks): Promise<PluginToolAnswer> {
    const askClient = hooks?.askClient;
    return this.request(
      async (session, backendSignal) =>
        copy(await this.backend.invoke(session, copy(request), backendSignal, undefined, askClient ? (question) => askClient(copy(question)) : undefined)),
      signal,
    );
  }

  reportRefusedCall(report: RefusedCallReport): void {
    const session = this.session;
    if (!this.connected || !session) return;
    void Promise.resolve()
      .then(() => this.backend.refused(session, copy(report)))
      .catch(() => undefined);
  }

  private async dial(): Promise<void> {
    if (!this.hello || !this.reachable || this.connected) return;
    const epoch = ++this.epoch;
    let bound: SessionIdentity;
    let linked: LinkedSession;
    try {
      const session = await this.authenticate();
      if (!session) return; // refused, or the backend could not prove itself: stays disconnected, as a WebSocket link would
      linked = session;
      bound = copy(await this.backend.hello(session, copy(this.hello)));
    } catch {
      return;
    }
    if (epoch !== this.epoch || !this.reachable) return;
    this.session = linked;
    this.connected = true;
    this.emitConnected(copy(bound));
  }

  /** The same exchange as the WebSocket link, through the backend's port. */
  private async authenticate(): Promise<LinkedSession | undefined> {
    const exchange = this.credentials.exchange();
    const begun = await this.backend.authBegin(exchange.opening());
    const proof = exchange.prove(begun.reply);
    if (!proof.ok) return undefined;
    const finished = await this.backend.authFinish(begun.challenge, proof.value);
    return exchange.backendProved(finished.reply) ? finished.session : undefined;
  }

  private drop(reason: string): void {
    this.connected = false;
    this.epoch++;
    for (const call of [...this.pending]) call.reject(new InvocationError('BACKEND_UNAVAILABLE', `${reason}; the call may have run`));
    this.pending.clear();
  }

  private request<T>(send: (session: LinkedSession, backendSignal: AbortSignal) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    const session = this.session;
    if (!this.connected || !session) return Promise.reject(new InvocationError('BACKEND_UNAVAILABLE', 'not connected to the backend; the call was not sent'));
    if (signal?.aborted) return Promise.reject(cancelled());
    return new Promise<T>((resolve, reject) => {
      const backendAbort = new AbortController();
      const finish = (): void => {
        this.pending.delete(entry);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const entry: Pending = {
        reject: (error) => {
          finish();
          reject(error);
        },
      };
      const onAbort = (): void => {
        backendAbort.abort();
        entry.reject(cancelled());
      };
      const timer = setTimeout(() => {
        backendAbort.abort();
        entry.reject(new InvocationError('BACKEND_UNAVAILABLE', `backend did not answer within ${this.requestTimeoutMs} ms; the call may have run`));
      }, this.requestTimeoutMs);
      this.pending.add(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      send(session, backendAbort.signal).then(
        (value) => {
          if (!this.pending.has(entry)) return;
          finish();
          resolve(value);
        },
        (error: unknown) => {
          if (!this.pending.has(entry)) return;
          entry.reject(error instanceof InvocationError ? error : new InvocationError('BACKEND_UNAVAILABLE', 'backend failed; the call may have run'));
        },
      );
    });
  }
}

function cancelled(): InvocationError {
  return new InvocationError('CANCELLED', 'the call was cancelled by the client');
}

function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
