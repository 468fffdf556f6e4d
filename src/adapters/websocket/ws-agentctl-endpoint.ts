import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import {
  AGENTCTL_ACTIONS,
  AGENTCTL_WS_PATH,
  decodeFrame,
  decodeHelloRequest,
  decodeInvokeRequest,
  encodeFrame,
  errorFrame,
  MAX_FRAME_BYTES,
  responseFrame,
  wireErrorOf,
  type Frame,
  type HelloRequest,
  type InvokePluginToolRequest,
  type InvokePluginToolResponse,
  type WireError,
} from '../../application/agentctl-protocol';
import type { Logger } from '../../application/ports/logger';
import type { CatalogSnapshot } from '../../domain/catalog';
import { InvocationError } from '../../domain/errors';
import type { JsonValue } from '../../domain/json';
import type { SessionIdentity } from '../../domain/session';

/** What the endpoint asks of the backend core; composition binds it to the use cases. */
export interface AgentctlEndpointHandlers {
  /** The session a session token belongs to, or undefined (stopped, dead or unknown). */
  authenticate(sessionToken: string): SessionIdentity | undefined;
  /** `agentctl.hello`: records where the agentctl's control API listens. */
  hello(session: SessionIdentity, hello: HelloRequest): void;
  /** Called when the session's link closes for good (not when it is replaced). */
  linkClosed(session: SessionIdentity): void;
  snapshot(): CatalogSnapshot;
  /** One checked plugin call; throws InvocationError on a refusal or failure. */
  invoke(session: SessionIdentity, request: InvokePluginToolRequest, signal: AbortSignal): Promise<InvokePluginToolResponse>;
}

export interface AgentctlEndpointOptions {
  pingIntervalMs: number;
  /** Pongs missed in a row before the link is dropped. */
  missedPongsAllowed: number;
}

const IDENTITY_FIELDS = ['task_id', 'session_id', 'workspace_id', 'surface'] as const;

/**
 * The backend's end of CONTRACT §7: `GET /api/v1/agentctl/ws` with a session bearer token.
 * The identity of every request is the one the token is bound to, never the payload's.
 */
export class WsAgentctlEndpoint {
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: MAX_FRAME_BYTES });
  private readonly links = new Map<string, WebSocket>();
  private readonly inFlight = new Map<WebSocket, Map<string, AbortController>>();

  constructor(
    private readonly handlers: AgentctlEndpointHandlers,
    private readonly logger: Logger,
    private readonly options: AgentctlEndpointOptions = { pingIntervalMs: 10000, missedPongsAllowed: 2 },
  ) {}

  /**
   * Takes over WebSocket upgrades on the agentctl path of `httpServer`. An upgrade request on
   * any other path is answered by the server's own request handler as a plain request, so the
   * API's token check and routing apply to it too (an `upgrade` listener would bypass them).
   */
  attach(httpServer: Server): void {
    httpServer.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
      if (new URL(request.url ?? '/', 'http://localhost').pathname === AGENTCTL_WS_PATH) this.upgrade(request, socket, head);
      else answerAsPlainRequest(httpServer, request, socket);
    });
  }

  /** Number of live agentctl links (for metrics and tests). */
  linkCount(): number {
    return this.links.size;
  }

  /** Closes every link (shutdown). */
  close(): void {
    for (const socket of this.links.values()) socket.close(1001, 'backend shutting down');
    this.links.clear();
    this.server.close();
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    const header = request.headers.authorization ?? '';
    const token = header.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
    const session = token ? this.handlers.authenticate(token) : undefined;
    this.server.handleUpgrade(request, socket, head, (ws) => {
      if (!session) {
        // §7: a bad or unknown token gets an UNAUTHORIZED error frame, then the close.
        ws.send(encodeFrame(errorFrame('0', { code: 'UNAUTHORIZED', message: '[SESSION_NOT_LIVE] unknown or expired session token' })));
        ws.close(4401, 'unauthorized');
        return;
      }
      this.accept(ws, session);
    });
  }

  private accept(ws: WebSocket, session: SessionIdentity): void {
    const previous = this.links.get(session.session_id);
    this.links.set(session.session_id, ws);
    previous?.close(4000, 'replaced by a newer link');
    this.inFlight.set(ws, new Map());
    const log = this.logger.child({ session_id: session.session_id, task_id: session.task_id });
    log.info({}, 'agentctl link up');

    let missed = 0;
    ws.on('pong', () => {
      missed = 0;
    });
    const ping = setInterval(() => {
      if (missed >= this.options.missedPongsAllowed) {
        log.warn({ missed }, 'agentctl missed pongs; dropping the link');
        ws.terminate();
        return;
      }
      missed += 1;
      ws.ping();
    }, this.options.pingIntervalMs);
    ping.unref();

    ws.on('message', (data, isBinary) => this.onMessage(ws, session, data, isBinary, log));
    ws.on('close', () => {
      clearInterval(ping);
      for (const controller of this.inFlight.get(ws)?.values() ?? []) controller.abort();
      this.inFlight.delete(ws);
      if (this.links.get(session.session_id) === ws) {
        this.links.delete(session.session_id);
        this.handlers.linkClosed(session);
      }
      log.info({}, 'agentctl link down');
    });
    ws.on('error', (error) => log.warn({ err: error.message }, 'agentctl link error'));
  }

  private onMessage(ws: WebSocket, session: SessionIdentity, data: RawData, isBinary: boolean, log: Logger): void {
    const decoded = isBinary ? { ok: false as const, reason: 'binary frames are not accepted' } : decodeFrame(rawText(data));
    if (!decoded.ok) {
      send(ws, errorFrame('0', { code: 'BAD_REQUEST', message: `[INVALID_ARGUMENTS] ${decoded.reason}` }));
      return;
    }
    const frame = decoded.value;
    if (frame.type === 'cancel') {
      this.inFlight.get(ws)?.get(frame.id)?.abort();
      return;
    }
    if (frame.type !== 'request') return; // agentctl sends no answers the backend waits for
    void this.answer(ws, session, frame, log).catch((error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error), action: frame.action }, 'agentctl request failed');
      send(ws, errorFrame(frame.id, { code: 'INTERNAL', message: '[BACKEND_UNAVAILABLE] internal error' }));
    });
  }

  private async answer(ws: WebSocket, session: SessionIdentity, frame: Frame, log: Logger): Promise<void> {
    const foreign = namesAnotherIdentity(frame.payload, session);
    if (foreign) {
      send(ws, errorFrame(frame.id, { code: 'FORBIDDEN', message: `[SURFACE_NOT_ALLOWED] payload names another ${foreign}` }));
      return;
    }
    switch (frame.action) {
      case AGENTCTL_ACTIONS.hello: {
        const hello = decodeHelloRequest(frame.payload);
        if (!hello.ok) return send(ws, badRequest(frame.id, hello.reason));
        this.handlers.hello(session, hello.value);
        return send(ws, responseFrame(frame.id, { session: { ...session } }));
      }
      case AGENTCTL_ACTIONS.listPluginTools:
        return send(ws, responseFrame(frame.id, this.handlers.snapshot() as unknown as JsonValue));
      case AGENTCTL_ACTIONS.invokePluginTool: {
        const request = decodeInvokeRequest(frame.payload);
        if (!request.ok) return send(ws, badRequest(frame.id, request.reason));
        const controller = new AbortController();
        const calls = this.inFlight.get(ws);
        calls?.set(frame.id, controller);
        try {
          const result = await this.handlers.invoke(session, request.value, controller.signal);
          if (!controller.signal.aborted) send(ws, responseFrame(frame.id, result as unknown as JsonValue));
        } catch (error) {
          // A cancelled request gets nothing more (§7); other failures answer with their code.
          if (controller.signal.aborted) return;
          if (!(error instanceof InvocationError)) throw error;
          send(ws, errorFrame(frame.id, wireErrorOf(error)));
        } finally {
          calls?.delete(frame.id);
        }
        return;
      }
      default:
        log.debug({ action: frame.action }, 'unknown action');
        return send(ws, errorFrame(frame.id, { code: 'NOT_FOUND', message: `[TOOL_NOT_DECLARED] unknown action ${JSON.stringify(frame.action)}` }));
    }
  }
}

function badRequest(id: string, reason: string): Frame {
  const error: WireError = { code: 'BAD_REQUEST', message: `[INVALID_ARGUMENTS] ${reason}` };
  return errorFrame(id, error);
}

/** The identity field a payload names with a value other than the bound one, if any. */
function namesAnotherIdentity(payload: unknown, session: SessionIdentity): string | undefined {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const fields = payload as Record<string, unknown>;
  return IDENTITY_FIELDS.find((field) => field in fields && fields[field] !== session[field]);
}

function send(ws: WebSocket, frame: Frame): void {
  if (ws.readyState === ws.OPEN) ws.send(encodeFrame(frame));
}

function rawText(data: RawData): string {
  if (Array.isArray(data)) return Buffer.concat(data).toString('utf8');
  return Buffer.isBuffer(data) ? data.toString('utf8') : Buffer.from(data).toString('utf8');
}

/** Lets the server's 'request' handler answer an upgrade request, then closes the connection. */
function answerAsPlainRequest(httpServer: Server, request: IncomingMessage, socket: Duplex): void {
  const response = new ServerResponse(request);
  response.shouldKeepAlive = false;
  response.assignSocket(socket as Socket);
  response.once('finish', () => {
    response.detachSocket(socket as Socket);
    socket.end();
  });
  httpServer.emit('request', request, response);
}
