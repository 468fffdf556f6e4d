import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WebSocketServer, type WebSocket } from 'ws';
import {
  AGENTCTL_ACTIONS,
  AGENTCTL_WS_PATH,
  MAX_FRAME_BYTES,
  decodeFrame,
  decodeHelloRequest,
  decodeInvokeRequest,
  encodeFrame,
  errorFrame,
  responseFrame,
  wireErrorOf,
  type Frame,
  type HelloRequest,
  type HelloResponse,
  type InvokePluginToolRequest,
  type InvokePluginToolResponse,
} from '../../src/application/agentctl-protocol';
import type { InMemoryBackend } from '../../src/adapters/memory/in-memory-backend-link';
import type { CatalogSnapshot, CatalogTool } from '../../src/domain/catalog';
import { InvocationError } from '../../src/domain/errors';
import type { JsonValue } from '../../src/domain/json';
import type { SessionIdentity } from '../../src/domain/session';
import type { ToolSurface } from '../../src/domain/surfaces';

export type InvokeBehaviour = (request: InvokePluginToolRequest, signal: AbortSignal) => Promise<InvokePluginToolResponse>;

export const TEST_IDENTITY: SessionIdentity = { task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task' };

/** Answers with the arguments echoed as text. */
export const echoInvoke: InvokeBehaviour = async (request) => ({
  invocation_id: `inv-${request.local_name}`,
  text: JSON.stringify(request.arguments),
  structured_content: null,
  is_error: false,
});

/** Never answers; resolves nothing until the signal aborts (then rejects). */
export const hangingInvoke: InvokeBehaviour = (_request, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

/** A catalog tool on the default prefix (`kandev_<slug>_<name>`). */
export function catalogTool(pluginId: string, localName: string, overrides: Partial<CatalogTool> = {}): CatalogTool {
  const slug = pluginId.toLowerCase().replace(/[^a-z0-9_]/g, '_').replace(/^_+|_+$/g, '');
  const surfaces: ToolSurface[] = ['kanban-task', 'office-task'];
  return {
    plugin_id: pluginId,
    plugin_version: '1.0.0',
    local_name: localName,
    exposed_name: `kandev_${slug}_${localName}`,
    description: `The ${localName} tool`,
    surfaces,
    input_schema: { type: 'object', properties: { value: { type: 'string' } } },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    ...overrides,
  };
}

export function snapshotOf(tools: CatalogTool[], revision = 1, generation = '000000000001-aaaaaaaa'): CatalogSnapshot {
  return { generation, revision, tools: [...tools].sort((a, b) => (a.exposed_name < b.exposed_name ? -1 : a.exposed_name > b.exposed_name ? 1 : 0)) };
}

/**
 * A scriptable backend core: the identity it binds, the snapshot it serves, how it answers
 * invokes. It records hellos, invokes and cancellations (an invoke's signal aborting).
 */
export class ScriptedBackend implements InMemoryBackend {
  identity: SessionIdentity = { ...TEST_IDENTITY };
  snapshot: CatalogSnapshot = snapshotOf([catalogTool('acme.tools', 'add_tag')]);
  invoke: InvokeBehaviour = echoInvoke;
  readonly hellos: HelloRequest[] = [];
  readonly invokes: InvokePluginToolRequest[] = [];
  readonly cancelled: InvokePluginToolRequest[] = [];
  private readonly cancelWaiters = new Set<() => void>();

  async hello(request: HelloRequest): Promise<HelloResponse> {
    this.hellos.push(request);
    return { session: { ...this.identity } };
  }

  async listPluginTools(): Promise<unknown> {
    return this.snapshot;
  }

  invokePluginTool(request: InvokePluginToolRequest, signal: AbortSignal): Promise<InvokePluginToolResponse> {
    this.invokes.push(request);
    signal.addEventListener(
      'abort',
      () => {
        this.cancelled.push(request);
        for (const waiter of [...this.cancelWaiters]) waiter();
      },
      { once: true },
    );
    return this.invoke(request, signal);
  }

  /** Resolves with the ms it took once `count` cancellations were seen; rejects after `timeoutMs`. */
  waitForCancels(count: number, timeoutMs: number): Promise<number> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.cancelled.length < count) return;
        this.cancelWaiters.delete(check);
        clearTimeout(timer);
        resolve(Date.now() - started);
      };
      const timer = setTimeout(() => {
        this.cancelWaiters.delete(check);
        reject(new Error(`saw ${this.cancelled.length} cancellations, wanted ${count}, within ${timeoutMs} ms`));
      }, timeoutMs);
      this.cancelWaiters.add(check);
      check();
    });
  }
}

/**
 * A backend speaking CONTRACT §7 over a real WebSocket, built on the shared codec: bearer
 * session token, hello/list/invoke, cancel frames abort the call's signal, and it can be
 * stopped (every socket dropped) and restarted on the same port.
 */
export class TestBackendServer {
  readonly frames: Frame[] = [];
  private http: Server | null = null;
  private readonly wss = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly sockets = new Set<WebSocket>();
  private boundPort = 0;

  private constructor(
    readonly backend: ScriptedBackend,
    readonly sessionToken: string,
  ) {}

  static async start(backend = new ScriptedBackend(), sessionToken = 'session-token', port = 0): Promise<TestBackendServer> {
    const server = new TestBackendServer(backend, sessionToken);
    await server.listen(port);
    return server;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  cancelFrames(): Frame[] {
    return this.frames.filter((frame) => frame.type === 'cancel');
  }

  requestFrames(action: string): Frame[] {
    return this.frames.filter((frame) => frame.type === 'request' && frame.action === action);
  }

  linkCount(): number {
    return this.sockets.size;
  }

  /** Drops every link and stops listening (a crashed backend). */
  async stop(): Promise<void> {
    for (const socket of this.sockets) socket.terminate();
    this.sockets.clear();
    const http = this.http;
    this.http = null;
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restart(): Promise<void> {
    await this.listen(this.boundPort);
  }

  private async listen(port: number): Promise<void> {
    const http = createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    http.on('upgrade', (request, socket, head) => {
      if (new URL(request.url ?? '/', 'http://x').pathname !== AGENTCTL_WS_PATH) {
        socket.destroy();
        return;
      }
      const authorized = request.headers.authorization === `Bearer ${this.sessionToken}`;
      this.wss.handleUpgrade(request, socket, head, (ws) => {
        if (!authorized) {
          ws.send(encodeFrame(errorFrame('0', { code: 'UNAUTHORIZED', message: '[BACKEND_UNAVAILABLE] bad session token' })));
          ws.close(4401, 'unauthorized');
          return;
        }
        this.accept(ws);
      });
    });
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, '127.0.0.1', () => resolve());
    });
    this.http = http;
    this.boundPort = (http.address() as AddressInfo).port;
  }

  private accept(ws: WebSocket): void {
    this.sockets.add(ws);
    const inFlight = new Map<string, AbortController>();
    ws.on('close', () => {
      this.sockets.delete(ws);
      for (const controller of inFlight.values()) controller.abort();
    });
    ws.on('message', (data) => {
      const decoded = decodeFrame(data as Buffer);
      if (!decoded.ok) return;
      const frame = decoded.value;
      this.frames.push(frame);
      if (frame.type === 'cancel') inFlight.get(frame.id)?.abort();
      else if (frame.type === 'request') void this.answer(ws, frame, inFlight);
    });
  }

  private async answer(ws: WebSocket, frame: Frame, inFlight: Map<string, AbortController>): Promise<void> {
    const send = (reply: Frame): void => {
      if (ws.readyState === ws.OPEN) ws.send(encodeFrame(reply));
    };
    if (frame.action === AGENTCTL_ACTIONS.hello) {
      const hello = decodeHelloRequest(frame.payload);
      if (!hello.ok) return send(errorFrame(frame.id, { code: 'BAD_REQUEST', message: `[INVALID_ARGUMENTS] ${hello.reason}` }));
      return send(responseFrame(frame.id, (await this.backend.hello(hello.value)) as unknown as JsonValue));
    }
    if (frame.action === AGENTCTL_ACTIONS.listPluginTools) {
      return send(responseFrame(frame.id, (await this.backend.listPluginTools()) as JsonValue));
    }
    if (frame.action === AGENTCTL_ACTIONS.invokePluginTool) {
      const request = decodeInvokeRequest(frame.payload);
      if (!request.ok) return send(errorFrame(frame.id, { code: 'BAD_REQUEST', message: `[INVALID_ARGUMENTS] ${request.reason}` }));
      const controller = new AbortController();
      inFlight.set(frame.id, controller);
      try {
        const result = await this.backend.invokePluginTool(request.value, controller.signal);
        if (!controller.signal.aborted) send(responseFrame(frame.id, result as unknown as JsonValue));
      } catch (error) {
        if (controller.signal.aborted) return;
        const failure = error instanceof InvocationError ? error : new InvocationError('BACKEND_UNAVAILABLE', 'INTERNAL', 'internal error');
        send(errorFrame(frame.id, wireErrorOf(failure)));
      } finally {
        inFlight.delete(frame.id);
      }
      return;
    }
    send(errorFrame(frame.id, { code: 'NOT_FOUND', message: `[TOOL_NOT_DECLARED] unknown action` }));
  }
}

/** Polls `condition` every 5 ms until it holds; rejects after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 2000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
