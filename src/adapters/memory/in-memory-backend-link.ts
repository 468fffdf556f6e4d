import {
  decodeHelloResponse,
  decodeInvokeResponse,
  type HelloRequest,
  type HelloResponse,
  type InvokePluginToolRequest,
  type InvokePluginToolResponse,
} from '../../application/agentctl-protocol';
import { BackendLink } from '../../application/ports/backend-link';
import { InvocationError } from '../../domain/errors';

/** The backend side an in-memory link talks to (a test double, or anything in-process). */
export interface InMemoryBackend {
  /** Answers hello; throws InvocationError to refuse it. */
  hello(request: HelloRequest): Promise<HelloResponse>;
  listPluginTools(): Promise<unknown>;
  /** `signal` aborts when agentctl sends a cancel. Throws InvocationError for an error frame. */
  invokePluginTool(request: InvokePluginToolRequest, signal: AbortSignal): Promise<InvokePluginToolResponse>;
}

interface Pending {
  reject(error: InvocationError): void;
}

/**
 * A BackendLink with no socket, for fast tests. setReachable(false) behaves like a dropped
 * connection (pending calls end at once, new ones fail); setReachable(true) reconnects.
 * Payloads are copied through JSON so neither side can share objects with the other.
 */
export class InMemoryBackendLink extends BackendLink {
  private hello: HelloRequest | null = null;
  private reachable = true;
  private connected = false;
  private epoch = 0;
  private readonly pending = new Set<Pending>();

  constructor(
    private readonly backend: InMemoryBackend,
    private readonly requestTimeoutMs = 10_000,
  ) {
    super();
  }

  connect(hello: HelloRequest): void {
    this.hello = hello;
    void this.dial();
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
    return this.request(() => this.backend.listPluginTools().then(copy), undefined);
  }

  invokePluginTool(request: InvokePluginToolRequest, signal?: AbortSignal): Promise<InvokePluginToolResponse> {
    return this.request(async (backendSignal) => {
      const decoded = decodeInvokeResponse(copy(await this.backend.invokePluginTool(copy(request), backendSignal)));
      if (!decoded.ok) throw new InvocationError('BAD_RESULT', 'INTERNAL', `backend answer: ${decoded.reason}`);
      return decoded.value;
    }, signal);
  }

  private async dial(): Promise<void> {
    if (!this.hello || !this.reachable || this.connected) return;
    const epoch = ++this.epoch;
    let answer;
    try {
      answer = decodeHelloResponse(copy(await this.backend.hello(copy(this.hello))));
    } catch {
      return; // refused: stays disconnected, as a WebSocket link would after UNAUTHORIZED
    }
    if (epoch !== this.epoch || !this.reachable || !answer.ok) return;
    this.connected = true;
    this.emitConnected(answer.value.session);
  }

  private drop(reason: string): void {
    this.connected = false;
    this.epoch++;
    for (const call of [...this.pending]) call.reject(new InvocationError('BACKEND_UNAVAILABLE', 'UNAVAILABLE', `${reason}; the call may have run`));
    this.pending.clear();
  }

  private request<T>(send: (backendSignal: AbortSignal) => Promise<T>, signal: AbortSignal | undefined): Promise<T> {
    if (!this.connected) return Promise.reject(new InvocationError('BACKEND_UNAVAILABLE', 'UNAVAILABLE', 'not connected to the backend; the call was not sent'));
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
        entry.reject(new InvocationError('BACKEND_UNAVAILABLE', 'TIMEOUT', `backend did not answer within ${this.requestTimeoutMs} ms; the call may have run`));
      }, this.requestTimeoutMs);
      this.pending.add(entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      send(backendAbort.signal).then(
        (value) => {
          if (!this.pending.has(entry)) return;
          finish();
          resolve(value);
        },
        (error: unknown) => {
          if (!this.pending.has(entry)) return;
          entry.reject(error instanceof InvocationError ? error : new InvocationError('BACKEND_UNAVAILABLE', 'INTERNAL', 'backend failed; the call may have run'));
        },
      );
    });
  }
}

function cancelled(): InvocationError {
  return new InvocationError('CANCELLED', 'CANCELLED', 'the call was cancelled by the client');
}

function copy<T>(value: T): T {
  return value === undefined ? value : (JSON.parse(JSON.stringify(value)) as T);
}
