import WebSocket from 'ws';
import type { AgentctlHello, AskClient, PluginToolAnswer, PluginToolRequest, RefusedCallReport } from '../../application/ports/link-messages';
import { BackendLink, type InvokeHooks } from '../../application/ports/backend-link';
import type { Logger } from '../../application/ports/logger';
import { LinkCredentials } from '../../application/link/link-credentials';
import type { ApprovalMarks } from '../../application/agentctl/approval-marks';
import { LinkRefusal } from '../../application/link/link-refusal';
import { InvocationError } from '../../domain/errors';
import { isJsonObject, type JsonValue } from '../../domain/json';
import { certificateProblem } from '../shared/trusted-ca';
import { BackendUrlSource } from './backend-url-source';
import { SCRAM_MECHANISM } from './scram';
import { ScramLinkProof } from './scram-link-proof';
import { ACTIONS, MAX_FRAME_BYTES, cancelFrame, decodeFrame, encodeFrame, requestFrame, responseFrame, type Action, type Frame } from './frames';
import {
  authPayload,
  clientAnswerPayload,
  decodeAskClient,
  decodeAuthPayload,
  decodeHelloAnswer,
  decodeInvokeAnswer,
  helloPayload,
  invokePayload,
  pushAnswerPayload,
  refusedCallPayload,
} from './link-payloads';
import { invocationErrorOf, refusalFrame } from './wire-errors';

export interface WsBackendLinkOptions {
  /** PEM certificates to trust for a backend on https/wss, besides the system's. */
  ca?: string;
  /** Called when the backend's certificate cannot be trusted: a setup error, not a passing one. */
  onCertificateProblem?: (message: string) => void;
  /** The backend's base URL (`http://127.0.0.1:7800`). */
  backendUrl?: string;
  /** When set, `<dataDir>/backend.json` is re-read for the URL on every dial. */
  dataDir?: string;
  /** Used for SCRAM proofs only: never sent. */
  sessionToken: string;
  /** Deadline for hello and catalog pulls. */
  requestTimeoutMs: number;
  /** Deadline for a tool call: the tool timeout plus a margin. */
  invokeTimeoutMs: number;
  logger: Logger;
  /** Reconnect delays double from this… */
  initialBackoffMs?: number;
  /** …up to this (docs/agentctl.md §7: 2 s). */
  maxBackoffMs?: number;
  /** The backend pings every 10 s; a link that hears nothing for this long is dropped. */
  silenceTimeoutMs?: number;
  /** Where `approval.marks` is kept (docs/approvals.md, "Marked tools"). */
  marks?: ApprovalMarks;
}

interface Pending {
  resolve(payload: JsonValue | undefined): void;
  reject(error: InvocationError): void;
  /** The backend holds the call for an approval (`waitMs` at most), or released it: the deadline pauses meanwhile. */
  held?(held: boolean, waitMs: number): void;
  /** Whether the backend holds it now: dropped then, it never ran. */
  waiting?: boolean;
  /** Answers the backend's `mcp.ask_client` about this call. */
  askClient?: AskClient;
}

/** How much longer than the backend's own bound a held call may wait here (the decision's trip back). */
const HELD_MARGIN_MS = 5000;

/** The §7 link over `ws`: one socket at a time, requests correlated by frame id. */
export class WsBackendLink extends BackendLink {
  private readonly urls: BackendUrlSource;
  private hello: AgentctlHello | null = null;
  private socket: WebSocket | null = null;
  private connected = false;
  private attempt = 0;
  private retryTimer: NodeJS.Timeout | undefined;
  private silenceTimer: NodeJS.Timeout | undefined;
  private nextId = 0;
  private readonly pending = new Map<string, Pending>();
  private readonly credentials: LinkCredentials;
  /** The socket whose peer proved it is this session's backend: the only one heard from. */
  private proven: WebSocket | null = null;

  constructor(private readonly options: WsBackendLinkOptions) {
    super();
    this.urls = new BackendUrlSource(options.backendUrl, options.dataDir);
    this.credentials = new LinkCredentials(options.sessionToken, new ScramLinkProof());
  }

  connect(hello: AgentctlHello): void {
    this.hello = hello;
    if (!this.socket && !this.retryTimer) this.dial();
  }

  async goodbye(timeoutMs: number): Promise<void> {
    if (!this.connected || !this.socket) return;
    await this.send(ACTIONS.goodbye, {}, timeoutMs, undefined, this.socket).catch((error: unknown) => {
      this.options.logger.debug({ err: error instanceof Error ? error.message : String(error) }, 'goodbye not answered');
    });
  }

  async close(): Promise<void> {
    this.hello = null;
    clearTimeout(this.retryTimer);
    this.retryTimer = undefined;
    const socket = this.socket;
    this.dropped(socket, 'link closed');
    if (socket && socket.readyState !== WebSocket.CLOSED) {
      await new Promise<void>((resolve) => {
        const force = setTimeout(() => socket.terminate(), 1000);
        socket.once('close', () => {
          clearTimeout(force);
          resolve();
        });
        socket.close(1000);
      });
    }
  }

  isConnected(): boolean {
    return this.connected;
  }

  listPluginTools(): Promise<unknown> {
    return this.request(ACTIONS.listPluginTools, null, this.options.requestTimeoutMs);
  }

  async invokePluginTool(request: PluginToolRequest, signal?: AbortSignal, hooks?: InvokeHooks): Promise<PluginToolAnswer> {
    const payload = await this.request(ACTIONS.invokePluginTool, invokePayload(request), this.options.invokeTimeoutMs, signal, hooks);
    const decoded = decodeInvokeAnswer(payload);
    if (!decoded.ok) throw new InvocationError('BAD_RESULT', `backend answer: ${decoded.reason}`);
    return decoded.value;
  }

  /** One request frame, no pending entry: whatever answers its id is dropped by receive(). */
  reportRefusedCall(report: RefusedCallReport): void {
    const socket = this.socket;
    if (!this.connected || !socket) return;
    this.sendFrame(socket, requestFrame(String(++this.nextId), ACTIONS.reportRefusedCall, refusedCallPayload(report)));
  }

  private dial(): void {
    this.retryTimer = undefined;
    if (!this.hello) return;
    const url = this.urls.wsUrl();
    if (!url) {
      this.options.logger.warn({}, 'no backend URL known yet');
      this.scheduleRetry();
      return;
    }
    const socket = new WebSocket(url, {
      maxPayload: MAX_FRAME_BYTES,
      handshakeTimeout: this.options.requestTimeoutMs,
      ...(this.options.ca === undefined ? {} : { ca: this.options.ca }),
    });
    this.socket = socket;
    socket.on('open', () => this.greet(socket));
    socket.on('message', (data, isBinary) => {
      this.heard(socket);
      if (!isBinary) this.receive(data as Buffer);
    });
    socket.on('ping', () => this.heard(socket));
    socket.on('error', (error) => {
      const problem = certificateProblem((error as NodeJS.ErrnoException).code, url);
      if (problem && this.options.onCertificateProblem) this.options.onCertificateProblem(problem);
      else this.options.logger.debug({ err: error.message }, 'backend link error');
    });
    socket.on('close', (code) => {
      if (this.socket !== socket) return;
      this.options.logger.info({ code }, 'backend link closed');
      this.dropped(socket, 'connection to the backend dropped');
      // Another replica may be serving: the next dial tries the next URL.
      this.urls.next();
      this.scheduleRetry();
    });
  }

  /** Authenticates (SCRAM-SHA-256, the backend proving itself too), then says hello. */
  private greet(socket: WebSocket): void {
    const hello = this.hello;
    if (!hello) return;
    this.heard(socket);
    this.authenticate(socket)
      .then(() => this.send(ACTIONS.hello, helloPayload(hello), this.options.requestTimeoutMs, undefined, socket))
      .then(
        (payload) => {
          const answer = decodeHelloAnswer(payload);
          if (!answer.ok) throw new InvocationError('BACKEND_UNAVAILABLE', `hello answer: ${answer.reason}`);
          if (this.socket !== socket) return;
          this.connected = true;
          this.attempt = 0;
          this.options.logger.info({ session_id: answer.value.session_id }, 'connected to the backend');
          this.emitConnected(answer.value);
        },
        (error: unknown) => {
          if (error instanceof ImpostorError) this.options.logger.error({ url: this.urls.wsUrl() }, error.message);
          else this.options.logger.warn({ err: error instanceof Error ? error.message : String(error) }, 'backend refused the link');
          socket.terminate();
        },
      );
  }

  /**
   * The two SCRAM steps. Resolves only once the backend has signed the exchange with the
   * session's verifier; a peer that cannot (another process on the backend's port) gets
   * nothing from this agentctl but a proof it cannot use, and no hello.
   */
  private async authenticate(socket: WebSocket): Promise<void> {
    const scram = this.credentials.exchange();
    const timeout = this.options.requestTimeoutMs;
    const challenge = decodeAuthPayload(await this.send(ACTIONS.authBegin, authPayload(scram.opening(), SCRAM_MECHANISM), timeout, undefined, socket));
    if (!challenge.ok) throw new ImpostorError(`auth.begin answer: ${challenge.reason}`);
    const final = scram.prove(challenge.value);
    if (!final.ok) throw new ImpostorError(final.reason);
    const signed = decodeAuthPayload(await this.send(ACTIONS.authFinish, authPayload(final.value), timeout, undefined, socket));
    if (!signed.ok || !scram.backendProved(signed.value)) throw new ImpostorError("it could not sign the exchange with this session's key");
    if (this.socket === socket) this.proven = socket;
  }

  private request(action: Action, payload: JsonValue, timeoutMs: number, signal?: AbortSignal, hooks?: InvokeHooks): Promise<JsonValue | undefined> {
    if (!this.connected || !this.socket) {
      return Promise.reject(new InvocationError('BACKEND_UNAVAILABLE', 'not connected to the backend; the call was not sent'));
    }
    return this.send(action, payload, timeoutMs, signal, this.socket, hooks);
  }

  private send(
    action: Action,
    payload: JsonValue,
    timeoutMs: number,
    signal: AbortSignal | undefined,
    socket: WebSocket,
    hooks?: InvokeHooks,
  ): Promise<JsonValue | undefined> {
    if (signal?.aborted) return Promise.reject(cancelled());
    const id = String(++this.nextId);
    const text = encodeFrame(requestFrame(id, action, payload));
    if (Buffer.byteLength(text, 'utf8') > MAX_FRAME_BYTES) {
      return Promise.reject(new InvocationError('INVALID_ARGUMENTS', `the request exceeds the ${MAX_FRAME_BYTES}-byte frame limit; not sent`));
    }
    return new Promise((resolve, reject) => {
      const settle = (): void => {
        this.pending.delete(id);
        clearTimeout(timer);
        signal?.removeEventListener('abort', onAbort);
      };
      const abandon = (error: InvocationError): void => {
        settle();
        this.sendFrame(socket, cancelFrame(id));
        reject(error);
      };
      const onAbort = (): void => abandon(cancelled());
      const late = (): void => abandon(new InvocationError('BACKEND_UNAVAILABLE', `backend did not answer within ${timeoutMs} ms; the call may have run`));
      let timer = setTimeout(late, timeoutMs);
      const entry: Pending = {
        resolve: (value) => {
          settle();
          resolve(value);
        },
        reject: (error) => {
          settle();
          reject(error);
        },
        held: (held, waitMs) => {
          // The wait for a decision never counts against the call's deadline, which starts again once it may proceed.
          clearTimeout(timer);
          entry.waiting = held;
          const waited = (): void =>
            abandon(new InvocationError('BACKEND_UNAVAILABLE', `no decision came back from the backend within ${waitMs} ms; the call did not run`));
          timer = held ? setTimeout(waited, waitMs + HELD_MARGIN_MS) : setTimeout(late, timeoutMs);
          hooks?.onHeld?.(held);
        },
        ...(hooks?.askClient ? { askClient: hooks.askClient } : {}),
      };
      this.pending.set(id, entry);
      signal?.addEventListener('abort', onAbort, { once: true });
      this.sendFrame(socket, text);
    });
  }

  private receive(data: Buffer): void {
    const decoded = decodeFrame(data);
    if (!decoded.ok) {
      this.options.logger.warn({ reason: decoded.reason }, 'ignored a malformed frame from the backend');
      return;
    }
    const frame: Frame = decoded.value;
    if (frame.type === 'request') return this.answerRequest(frame);
    const pending = this.pending.get(frame.id);
    if (!pending) return; // cancelled, timed out, or never ours: nothing more for that id
    if (frame.type === 'response') pending.resolve(frame.payload);
    else if (frame.type === 'error') pending.reject(invocationErrorOf(frame.payload));
  }

  /** The backend's own requests: `catalog.push` (answered with the §5 outcome); anything else is refused. */
  private answerRequest(frame: Frame): void {
    const socket = this.socket;
    if (!socket) return;
    if (this.proven !== socket) {
      // Before the peer has proved itself, nothing it asks is done (a squatter's push, say).
      this.sendFrame(socket, refusalFrame(frame.id, new LinkRefusal('NOT_AUTHENTICATED', 'the backend has not authenticated')));
      return;
    }
    if (frame.action === ACTIONS.callHeld) return this.answerHeld(socket, frame);
    if (frame.action === ACTIONS.askClient) return void this.answerAsk(socket, frame);
    if (frame.action === ACTIONS.approvalMarks) return this.answerMarks(socket, frame);
    if (frame.action !== ACTIONS.catalogPush) {
      this.sendFrame(socket, refusalFrame(frame.id, new LinkRefusal('UNKNOWN_ACTION', `unknown action ${JSON.stringify(frame.action)}`)));
      return;
    }
    const reply = this.answerPush(frame.payload);
    if (reply.ok) this.sendFrame(socket, responseFrame(frame.id, pushAnswerPayload(reply.answer)));
    else this.sendFrame(socket, refusalFrame(frame.id, new LinkRefusal('MALFORMED_REQUEST', reply.reason)));
  }

  /** `mcp.call_held {request_id, held, wait_ms?}` about one of this link's pending calls. */
  private answerHeld(socket: WebSocket, frame: Frame): void {
    const payload = frame.payload;
    const valid =
      isJsonObject(payload) &&
      typeof payload.request_id === 'string' &&
      typeof payload.held === 'boolean' &&
      (!payload.held || (typeof payload.wait_ms === 'number' && Number.isSafeInteger(payload.wait_ms) && payload.wait_ms > 0));
    if (!valid) {
      this.sendFrame(socket, refusalFrame(frame.id, new LinkRefusal('MALFORMED_REQUEST', 'mcp.call_held takes {request_id, held, wait_ms}')));
      return;
    }
    this.pending.get(payload.request_id as string)?.held?.(payload.held as boolean, payload.held ? (payload.wait_ms as number) : 0);
    this.sendFrame(socket, responseFrame(frame.id, {}));
  }

  /** `approval.marks {tools}`: the whole set of marked tools, kept for the MCP endpoints. */
  private answerMarks(socket: WebSocket, frame: Frame): void {
    const payload = frame.payload;
    const tools = isJsonObject(payload) ? payload.tools : undefined;
    if (!Array.isArray(tools) || !tools.every((tool) => typeof tool === 'string')) {
      this.sendFrame(socket, refusalFrame(frame.id, new LinkRefusal('MALFORMED_REQUEST', 'approval.marks takes {tools: [exposed names]}')));
      return;
    }
    this.options.marks?.set(tools as string[]);
    this.sendFrame(socket, responseFrame(frame.id, {}));
  }

  /**
   * `mcp.ask_client {request_id, tool, plugin_id, timeout_ms}` about one of this link's pending
   * calls: its MCP client's answer; `unsupported` for a call that has none to ask.
   */
  private async answerAsk(socket: WebSocket, frame: Frame): Promise<void> {
    const decoded = decodeAskClient(frame.payload);
    if (!decoded.ok) {
      this.sendFrame(socket, refusalFrame(frame.id, new LinkRefusal('MALFORMED_REQUEST', decoded.reason)));
      return;
    }
    const ask = this.pending.get(decoded.value.requestId)?.askClient;
    const answer = ask ? await ask(decoded.value.question).catch(() => 'denied' as const) : 'unsupported';
    this.sendFrame(socket, responseFrame(frame.id, clientAnswerPayload(answer)));
  }

  private sendFrame(socket: WebSocket, frame: Frame | string): void {
    if (socket.readyState !== WebSocket.OPEN) return;
    socket.send(typeof frame === 'string' ? frame : encodeFrame(frame));
  }

  private heard(socket: WebSocket): void {
    clearTimeout(this.silenceTimer);
    const timeout = this.options.silenceTimeoutMs ?? 35_000;
    this.silenceTimer = setTimeout(() => {
      this.options.logger.warn({ timeout_ms: timeout }, 'backend silent; dropping the link');
      socket.terminate();
    }, timeout);
    this.silenceTimer.unref();
  }

  /** Ends every pending call at once; none is re-sent (it may have run). */
  private dropped(socket: WebSocket | null, reason: string): void {
    if (socket && this.socket !== socket) return;
    this.socket = null;
    this.proven = null;
    this.connected = false;
    clearTimeout(this.silenceTimer);
    const calls = [...this.pending.values()];
    this.pending.clear();
    for (const call of calls) {
      // A call the backend was holding for an approval never reached the plugin.
      call.reject(
        new InvocationError('BACKEND_UNAVAILABLE', `${reason}; the call ${call.waiting ? 'did not run (it was waiting for approval)' : 'may have run'}`),
      );
    }
  }

  private scheduleRetry(): void {
    if (!this.hello || this.retryTimer) return;
    const ceiling = Math.min(this.options.maxBackoffMs ?? 2000, (this.options.initialBackoffMs ?? 100) * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 16);
    const delay = ceiling / 2 + Math.random() * (ceiling / 2);
    this.retryTimer = setTimeout(() => this.dial(), delay);
  }
}

/** The peer on the backend's address failed to prove it is this session's backend. */
class ImpostorError extends Error {
  constructor(reason: string) {
    super(`the backend did not prove it holds this session (${reason}); not linking: is another process listening on its address?`);
  }
}

function cancelled(): InvocationError {
  return new InvocationError('CANCELLED', 'the call was cancelled by the client');
}
