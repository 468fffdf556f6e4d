import { ServerResponse, type IncomingMessage, type Server } from 'node:http';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { WebSocketServer, type RawData, type WebSocket } from 'ws';
import type { AgentctlRequestHandler } from '../../application/sessions/agentctl-requests';
import type { LinkChallenge } from '../../application/sessions/authenticate-session';
import { LinkRefusal } from '../../application/link/link-refusal';
import type { ClientApprovalAnswer, ClientApprovalQuestion } from '../../application/ports/link-messages';
import type { Logger } from '../../application/ports/logger';
import { InvocationError } from '../../domain/errors';
import type { JsonValue } from '../../domain/json';
import { LIMITS } from '../../domain/limits';
import type { ConnectionGate } from '../shared/connection-gate';
import type { LinkedSession } from '../../domain/session';
import {
  ACTIONS,
  AGENTCTL_WS_PATH,
  CLOSE_REPLACED,
  CLOSE_UNAUTHORIZED,
  decodeFrame,
  encodeFrame,
  MAX_FRAME_BYTES,
  requestFrame,
  responseFrame,
  type Frame,
} from './frames';
import { authPayload, decodeAuthPayload, decodeHello, decodeInvoke, decodeRefusedCall, helloAnswerPayload, invokeAnswerPayload } from './link-payloads';
import { SCRAM_MECHANISM } from './scram';
import type { WsAgentctlLinks } from './ws-agentctl-links';
import { errorFrame, refusalFrame } from './wire-errors';

export interface AgentctlEndpointOptions {
  pingIntervalMs: number;
  /** Pongs missed in a row before the link is dropped. */
  missedPongsAllowed: number;
  /** How long a new connection has to authenticate (default 5 s). */
  authTimeoutMs?: number;
  /** The listener's connection counts: a link that authenticates counts as authenticated, if there is room. */
  connections?: ConnectionGate;
}

const AUTH_TIMEOUT_MS = 5_000;
/** A refused link gets this long to take its close frame; then it is cut, with no close handshake to wait for. */
const REFUSED_GRACE_MS = 250;
/** An auth frame holds one SCRAM message: nothing larger is read before authentication. */
const AUTH_FRAME_BYTES = 4096;

/** What a payload may name only with the bound value: a payload naming another profile is refused too. */
const IDENTITY_FIELDS = ['task_id', 'session_id', 'workspace_id', 'surface', 'profile'] as const;

/**
 * The backend's end of docs/agentctl.md §7: `GET /api/v1/agentctl/ws`, authenticated in its first
 * frames with SCRAM-SHA-256 (the agentctl proves it holds the session token without sending
 * it, and the backend proves it holds the session's verifier). The identity of every request
 * is the one the link authenticated as, never the payload's. The
 * links it accepts are kept in `links`, which also carries the backend's own requests
 * (`catalog.push`) to them.
 */
export class WsAgentctlEndpoint {
  // Until a link has authenticated its receiver refuses, at the frame's header, any frame over
  // the 4 KiB of an auth frame (raiseFrameLimit lifts that once the proof holds).
  private readonly server = new WebSocketServer({ noServer: true, maxPayload: AUTH_FRAME_BYTES, perMessageDeflate: false });
  private readonly inFlight = new Map<WebSocket, Map<string, AbortController>>();

  constructor(
    private readonly requests: AgentctlRequestHandler,
    readonly links: WsAgentctlLinks,
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
    return this.links.count();
  }

  /** Closes every link (shutdown). */
  close(): void {
    this.links.closeAll(1001, 'backend shutting down');
    this.server.close();
  }

  private upgrade(request: IncomingMessage, socket: Duplex, head: Buffer): void {
    // An agentctl sends no Origin; a browser always does, and no web page may open a link.
    if (request.headers.origin !== undefined) {
      socket.end('HTTP/1.1 403 Forbidden\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
      return;
    }
    // Nothing secret rides on the upgrade: the link authenticates in its first frames.
    this.server.handleUpgrade(request, socket, head, (ws) => this.authenticate(ws, request.socket));
  }

  /**
   * SCRAM-SHA-256 in two requests (`auth.begin`, `auth.finish`), each answered with the next
   * SCRAM message, within `authTimeoutMs`. Anything else, or a failed step, is UNAUTHORIZED
   * and the close; only then does the link exist.
   */
  private authenticate(ws: WebSocket, socket: Socket): void {
    let challenge: LinkChallenge | undefined;
    let busy = false;
    const deadline = setTimeout(() => refuse(ws, '0', notAuthenticated('authentication took too long')), this.options.authTimeoutMs ?? AUTH_TIMEOUT_MS);
    deadline.unref();
    const done = (): void => {
      clearTimeout(deadline);
      ws.off('message', onMessage);
    };
    ws.on('close', done);
    // A frame over the limit (refused at its header) or any other fault: cut at once, nothing more read.
    const onError = (error: Error): void => {
      this.logger.debug({ err: error.message }, 'agentctl link error before authentication');
      done();
      ws.terminate();
    };
    ws.on('error', onError);
    const onMessage = (data: RawData, isBinary: boolean): void => {
      const decoded = isBinary || rawSize(data) > AUTH_FRAME_BYTES ? undefined : decodeFrame(rawText(data));
      const frame = decoded?.ok ? decoded.value : undefined;
      if (busy || frame?.type !== 'request') return refuse(ws, frame?.id ?? '0', notAuthenticated('authenticate first (auth.begin)'));
      const step = challenge === undefined ? ACTIONS.authBegin : ACTIONS.authFinish;
      if (frame.action !== step) return refuse(ws, frame.id, notAuthenticated(`expected ${step}`));
      const message = decodeAuthPayload(frame.payload, step === ACTIONS.authBegin ? SCRAM_MECHANISM : undefined);
      if (!message.ok) return refuse(ws, frame.id, notAuthenticated(message.reason));
      busy = true;
      const answered = challenge === undefined ? this.begin(ws, frame.id, message.value) : this.finish(ws, frame.id, challenge, message.value);
      void answered.then(
        (next) => {
          busy = false;
          if ('sessionId' in next) challenge = next;
          else {
            done();
            ws.off('error', onError);
            if (this.options.connections && !this.options.connections.promote(socket)) {
              this.logger.warn({ limit: this.options.connections.limits.authenticated }, 'agentctl link refused: too many connections');
              return refuse(ws, frame.id, new LinkRefusal('REQUEST_FAILED', 'the backend holds as many connections as it may; try again later'));
            }
            if (!raiseFrameLimit(ws, MAX_FRAME_BYTES)) {
              this.logger.error({}, 'cannot raise the frame limit of an authenticated link (the ws receiver has no _maxPayload)');
              return void ws.terminate();
            }
            this.accept(ws, next);
          }
        },
        (error: unknown) => {
          busy = false;
          if (error instanceof LinkRefusal) {
            this.logger.debug({ reason: error.code }, 'agentctl link refused');
            return refuse(ws, frame.id, error);
          }
          this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'agentctl authentication failed');
          done();
          ws.terminate();
        },
      );
    };
    ws.on('message', onMessage);
  }

  private async begin(ws: WebSocket, id: string, clientFirst: string): Promise<LinkChallenge> {
    const begun = await this.requests.authBegin(clientFirst);
    send(ws, responseFrame(id, authPayload(begun.reply)));
    return begun.challenge;
  }

  private async finish(ws: WebSocket, id: string, challenge: LinkChallenge, clientFinal: string): Promise<LinkedSession> {
    const finished = await this.requests.authFinish(challenge, clientFinal);
    send(ws, responseFrame(id, authPayload(finished.reply)));
    return finished.session;
  }

  private accept(ws: WebSocket, session: LinkedSession): void {
    const previous = this.links.add(session.session_id, ws);
    previous?.close(CLOSE_REPLACED, 'replaced by a newer link');
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
      if (this.links.remove(session.session_id, ws)) this.requests.linkClosed(session);
      log.info({}, 'agentctl link down');
    });
    ws.on('error', (error) => log.warn({ err: error.message }, 'agentctl link error'));
  }

  private onMessage(ws: WebSocket, session: LinkedSession, data: RawData, isBinary: boolean, log: Logger): void {
    const size = rawSize(data);
    if (size > REQUEST_FRAME_BYTES) {
      // Nothing an agentctl may ask needs more (arguments are at most 4 MiB): refused unparsed,
      // so a peer sending many large frames at once cannot make the backend hold them parsed.
      send(
        ws,
        refusalFrame(
          frameIdOf(data),
          new LinkRefusal('REQUEST_TOO_LARGE', `a request of ${size} bytes is over the ${REQUEST_FRAME_BYTES}-byte limit of a call`),
        ),
      );
      return;
    }
    const decoded = isBinary ? { ok: false as const, reason: 'binary frames are not accepted' } : decodeFrame(rawText(data));
    if (!decoded.ok) {
      send(ws, badRequest('0', decoded.reason));
      return;
    }
    const frame = decoded.value;
    if (frame.type === 'cancel') {
      this.inFlight.get(ws)?.get(frame.id)?.abort();
      return;
    }
    if (frame.type !== 'request') {
      // An answer to one of the backend's own requests (catalog.push); any other is ignored.
      this.links.settle(ws, frame);
      return;
    }
    void this.answer(ws, session, frame, log).catch((error: unknown) => {
      log.error({ err: error instanceof Error ? error.message : String(error), action: frame.action }, 'agentctl request failed');
      send(ws, refusalFrame(frame.id, new LinkRefusal('REQUEST_FAILED', 'internal error')));
    });
  }

  private async answer(ws: WebSocket, session: LinkedSession, frame: Frame, log: Logger): Promise<void> {
    const foreign = namesAnotherIdentity(frame.payload, session);
    if (foreign) {
      send(ws, refusalFrame(frame.id, new LinkRefusal('FOREIGN_IDENTITY', `payload names another ${foreign}`)));
      return;
    }
    switch (frame.action) {
      case ACTIONS.hello: {
        const hello = decodeHello(frame.payload);
        if (!hello.ok) return send(ws, badRequest(frame.id, hello.reason));
        try {
          const bound = await this.requests.hello(session, hello.value);
          return send(ws, responseFrame(frame.id, helloAnswerPayload(bound)));
        } catch (error) {
          // The session ended between the upgrade and its hello (stopped, say): refused, and the close.
          if (!(error instanceof LinkRefusal)) throw error;
          log.info({ reason: error.code }, 'hello for an ended session refused');
          return refuse(ws, frame.id, error);
        }
      }
      case ACTIONS.goodbye:
        await this.requests.goodbye(session);
        log.info({}, 'agentctl said goodbye');
        return send(ws, responseFrame(frame.id, {}));
      case ACTIONS.listPluginTools:
        return send(ws, responseFrame(frame.id, (await this.requests.snapshot(session)) as unknown as JsonValue));
      case ACTIONS.invokePluginTool: {
        const request = decodeInvoke(frame.payload);
        if (!request.ok) return send(ws, badRequest(frame.id, request.reason));
        const controller = new AbortController();
        const calls = this.inFlight.get(ws);
        calls?.set(frame.id, controller);
        try {
          let notices = 0;
          // The agentctl pauses its own deadline for the call while the backend holds it (docs/approvals.md).
          const onHold = (held: boolean, waitMs: number): void =>
            send(ws, requestFrame(`h${frame.id}.${++notices}`, ACTIONS.callHeld, { request_id: frame.id, held, ...(held ? { wait_ms: waitMs } : {}) }));
          // Under a `client` rule the agentctl asks its client; its answer comes back on this link.
          const askClient = (question: ClientApprovalQuestion): Promise<ClientApprovalAnswer> =>
            this.links.askClient(ws, frame.id, question, question.timeoutMs + ASK_MARGIN_MS);
          const answer = await this.requests.invoke(session, request.value, controller.signal, onHold, askClient);
          if (!controller.signal.aborted) send(ws, responseFrame(frame.id, invokeAnswerPayload(answer)));
        } catch (error) {
          // A cancelled request gets nothing more (§7); other failures answer with their code.
          if (controller.signal.aborted) return;
          if (!(error instanceof InvocationError)) throw error;
          send(ws, errorFrame(frame.id, error));
        } finally {
          calls?.delete(frame.id);
        }
        return;
      }
      case ACTIONS.reportRefusedCall: {
        const report = decodeRefusedCall(frame.payload);
        if (!report.ok) return send(ws, badRequest(frame.id, report.reason));
        this.requests.refused(session, report.value);
        return send(ws, responseFrame(frame.id, {}));
      }
      default:
        log.debug({ action: frame.action }, 'unknown action');
        return send(ws, refusalFrame(frame.id, new LinkRefusal('UNKNOWN_ACTION', `unknown action ${JSON.stringify(frame.action)}`)));
    }
  }
}

/** How much longer than the approval timeout the endpoint waits for an agentctl's `mcp.ask_client` answer. */
const ASK_MARGIN_MS = 2000;

function badRequest(id: string, reason: string): Frame {
  return refusalFrame(id, new LinkRefusal('MALFORMED_REQUEST', reason));
}

function notAuthenticated(reason: string): LinkRefusal {
  return new LinkRefusal('NOT_AUTHENTICATED', reason);
}

/**
 * A link that does not authenticate gets one error frame (UNAUTHORIZED), then the close (4401);
 * it is cut shortly after, whether or not the peer answers the close.
 */
function refuse(ws: WebSocket, id: string, refusal: LinkRefusal): undefined {
  send(ws, refusalFrame(id, refusal));
  ws.close(CLOSE_UNAUTHORIZED, 'unauthorized');
  setTimeout(() => ws.terminate(), REFUSED_GRACE_MS).unref();
  return undefined;
}

/**
 * Lifts the frame limit of an authenticated link from the auth frame's 4 KiB to the link's own.
 * `ws` fixes a receiver's limit when it makes it; this sets the receiver's field (ws 8), and
 * answers false should a version of `ws` lack it (the link is then cut, and the test suite fails).
 */
function raiseFrameLimit(ws: WebSocket, bytes: number): boolean {
  const receiver = (ws as unknown as { _receiver?: { _maxPayload?: unknown } })._receiver;
  if (typeof receiver?._maxPayload !== 'number') return false;
  receiver._maxPayload = bytes;
  return true;
}

/** The identity field a payload names with a value other than the bound one, if any. */
function namesAnotherIdentity(payload: unknown, session: LinkedSession): string | undefined {
  if (!payload || typeof payload !== 'object' || Array.isArray(payload)) return undefined;
  const fields = payload as Record<string, unknown>;
  return IDENTITY_FIELDS.find((field) => field in fields && fields[field] !== session[field]);
}

function send(ws: WebSocket, frame: Frame): void {
  if (ws.readyState === ws.OPEN) ws.send(encodeFrame(frame));
}

/** A call's arguments (4 MiB of JSON) and the frame around them. */
const REQUEST_FRAME_BYTES = LIMITS.argumentBytes + 64 * 1024;

function rawSize(data: RawData): number {
  if (Array.isArray(data)) return data.reduce((sum, chunk) => sum + chunk.length, 0);
  return Buffer.isBuffer(data) ? data.length : data.byteLength;
}

/** The id a frame starts with (encodeFrame writes it first), read without parsing the frame; '0' when none. */
function frameIdOf(data: RawData): string {
  const head = (Array.isArray(data) ? data[0]! : Buffer.isBuffer(data) ? data : Buffer.from(data)).subarray(0, 96).toString('utf8');
  return /^\{\s*"id"\s*:\s*"([^"\\]{1,64})"/.exec(head)?.[1] ?? '0';
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
