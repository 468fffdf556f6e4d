import { AsyncLocalStorage } from 'node:async_hooks';
import { randomUUID } from 'node:crypto';
import type { ServerResponse } from 'node:http';
import { WebStandardStreamableHTTPServerTransport, type Server } from '@modelcontextprotocol/server';
import type { Logger } from '../../application/ports/logger';
import type { ToolListNotifier } from './tool-list-notifier';
import { sendWebResponse } from './web-exchange';

interface LegacyHttpSession {
  server: Server;
  transport: WebStandardStreamableHTTPServerTransport;
  lastActivity: number;
  /** HTTP responses of this session still open (a listening stream, a call in progress). */
  openResponses: number;
  /** Its client declared `elicitation`: its calls may be asked about (docs/approvals.md, client mode). */
  elicits: boolean;
}

/**
 * Set around the handling of every POST: true for one answered as an SSE stream, false for one
 * answered as one JSON body. The SDK's transport picks one answer shape for all its requests
 * (`enableJsonResponse`), read when a request arrives and again at each message sent for it;
 * each such message is sent from its request's own async context, so reading this per context
 * gives each request its own shape.
 */
const streamed = new AsyncLocalStorage<boolean>();

/**
 * Whether the request being handled here is a 2025-era HTTP POST answered as one JSON body: no
 * `elicitation/create` can ride on it, so its client cannot be asked (docs/approvals.md, client
 * mode: an operator decides such a call). False outside an HTTP POST (stdio, say).
 */
export function answeredAsJson(): boolean {
  return streamed.getStore() === false;
}

/** Which tools an approval rule may hold (docs/approvals.md, "Marked tools"). */
export type IsMarked = (exposedName: string) => boolean;

/**
 * Whether a POST body is answered as an SSE stream: a `tools/call` carrying a `progressToken`,
 * so its progress (docs/approvals.md) reaches the client before the result, and a `tools/call`
 * of a marked tool in a session whose client can be asked to approve it (`elicits`: the
 * elicitation rides on the call's stream, docs/approvals.md client mode). Every other request is
 * answered as one JSON body.
 */
export function answersAsStream(body: unknown, elicits = false, marked: IsMarked = () => false): boolean {
  if (!body || typeof body !== 'object' || Array.isArray(body)) return false;
  const message = body as { method?: unknown; params?: { name?: unknown; _meta?: { progressToken?: unknown } } };
  if (message.method !== 'tools/call') return false;
  if (message.params?._meta?.progressToken !== undefined) return true;
  return elicits && typeof message.params?.name === 'string' && marked(message.params.name);
}

/** Makes `transport`, when configured to answer as one JSON body, answer as a stream inside `streamed` (see there). */
function jsonUnlessStreamed(transport: WebStandardStreamableHTTPServerTransport): void {
  const configured = (transport as unknown as { _enableJsonResponse: boolean })._enableJsonResponse;
  Object.defineProperty(transport, '_enableJsonResponse', { get: () => configured && streamed.getStore() !== true, set: () => undefined, configurable: true });
}

/**
 * The 2025-era (stateful) MCP sessions of the HTTP endpoint: `initialize`, `Mcp-Session-Id`,
 * the GET listening stream, DELETE; one SDK v2 `Server` and one web-standard transport each.
 * A session with no open response and no request for `idleMs` is closed (its client went
 * away without DELETE).
 */
export class LegacyHttpSessions {
  private readonly sessions = new Map<string, LegacyHttpSession>();

  constructor(
    private readonly makeServer: () => Server,
    private readonly notifier: ToolListNotifier,
    private readonly logger: Logger,
    private readonly idleMs: number,
    private readonly marked: IsMarked = () => false,
  ) {}

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  count(): number {
    return this.sessions.size;
  }

  /** Handles an `initialize` POST: a new session whose id the transport assigns. */
  async open(request: Request, res: ServerResponse, body: unknown): Promise<void> {
    const server = this.makeServer();
    const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // A POST's answer goes out as one JSON body (one write). As an SSE stream, an answer not
      // ready within a few microtasks (every plugin call) was held for a timer tick and then
      // written as headers, event and end separately: +1.5 ms a request. Notifications still
      // reach the agent on the listening (GET) stream. Only a call that asked for progress, or
      // of a marked tool its client may be asked to approve, is answered as a stream (answersAsStream()).
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => {
        const session: LegacyHttpSession = { server, transport, lastActivity: Date.now(), openResponses: 0, elicits: declaresElicitation(body) };
        this.sessions.set(sessionId, session);
        this.notifier.add(sessionId, server, false);
        this.track(session, res);
        this.logger.debug({ mcp_session: sessionId }, 'MCP session opened');
      },
    });
    jsonUnlessStreamed(transport);
    transport.onclose = () => this.forget(transport.sessionId);
    server.oninitialized = () => {
      if (transport.sessionId) this.notifier.initialized(transport.sessionId);
    };
    await server.connect(transport);
    await sendWebResponse(await transport.handleRequest(request, { parsedBody: body }), res);
  }

  /** Handles a request of an existing session (the caller checked has()). */
  async handle(sessionId: string, request: Request, res: ServerResponse, body: unknown): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.track(session, res);
    const handle = () => session.transport.handleRequest(request, { parsedBody: body });
    const response = await (request.method === 'POST' ? streamed.run(answersAsStream(body, session.elicits, this.marked), handle) : handle());
    // A GET answered 200 is the session's listening stream, registered by now: a catch-up
    // sent from here reaches it.
    const listening = request.method === 'GET' && response.status === 200;
    if (listening) {
      this.notifier.setListening(sessionId, true);
      res.once('close', () => this.notifier.setListening(sessionId, false));
    }
    await sendWebResponse(response, res);
  }

  /** Closes sessions idle for longer than idleMs with nothing open. */
  reapIdle(now = Date.now()): void {
    for (const [sessionId, session] of this.sessions) {
      if (session.openResponses === 0 && now - session.lastActivity > this.idleMs) {
        this.logger.info({ mcp_session: sessionId }, 'closing idle MCP session');
        void this.close(sessionId, session);
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.sessions].map(([sessionId, session]) => this.close(sessionId, session)));
  }

  private async close(sessionId: string, session: LegacyHttpSession): Promise<void> {
    this.forget(sessionId);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }

  private forget(sessionId: string | undefined): void {
    if (sessionId === undefined) return;
    this.sessions.delete(sessionId);
    this.notifier.remove(sessionId);
  }

  private track(session: LegacyHttpSession, res: ServerResponse): void {
    session.lastActivity = Date.now();
    session.openResponses++;
    res.once('close', () => {
      session.openResponses--;
      session.lastActivity = Date.now();
    });
  }
}

/** Whether an `initialize` declares the `elicitation` capability (`{}` counts as form support). */
function declaresElicitation(body: unknown): boolean {
  const params = (body as { params?: { capabilities?: { elicitation?: unknown } } } | undefined)?.params;
  return params?.capabilities?.elicitation !== undefined && params.capabilities.elicitation !== null;
}
