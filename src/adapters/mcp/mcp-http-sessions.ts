import { randomUUID } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { Logger } from '../../application/ports/logger';
import { sweepAnsweredJsonStreams } from './json-stream-sweep';
import type { ToolListNotifier } from './tool-list-notifier';

interface McpHttpSession {
  server: Server;
  transport: StreamableHTTPServerTransport;
  lastActivity: number;
  /** HTTP responses of this session still open (a listening stream, a call in progress). */
  openResponses: number;
}

/**
 * The stateful MCP sessions of the HTTP endpoint: one `Server` and one transport each.
 * A session with no open response and no request for `idleMs` is closed (its client went
 * away without DELETE).
 */
export class McpHttpSessions {
  private readonly sessions = new Map<string, McpHttpSession>();

  constructor(
    private readonly makeServer: () => Server,
    private readonly notifier: ToolListNotifier,
    private readonly logger: Logger,
    private readonly idleMs: number,
  ) {}

  has(sessionId: string): boolean {
    return this.sessions.has(sessionId);
  }

  count(): number {
    return this.sessions.size;
  }

  /** Handles an `initialize` POST: a new session whose id the transport assigns. */
  async open(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const server = this.makeServer();
    const transport: StreamableHTTPServerTransport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => randomUUID(),
      // A POST's answer goes out as one JSON body (one write). As an SSE stream, an answer not
      // ready within a few microtasks (every plugin call) was held for a timer tick and then
      // written as headers, event and end separately: +1.5 ms a request. Notifications still
      // reach the agent on the listening (GET) stream.
      enableJsonResponse: true,
      onsessioninitialized: (sessionId) => {
        const session: McpHttpSession = { server, transport, lastActivity: Date.now(), openResponses: 0 };
        this.sessions.set(sessionId, session);
        this.notifier.add(sessionId, server, false);
        this.track(session, res);
        this.logger.debug({ mcp_session: sessionId }, 'MCP session opened');
      },
    });
    transport.onclose = () => this.forget(transport.sessionId);
    server.oninitialized = () => {
      if (transport.sessionId) this.notifier.initialized(transport.sessionId);
    };
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    sweepAnsweredJsonStreams(transport);
  }

  /** Handles a request of an existing session (the caller checked has()). */
  async handle(sessionId: string, req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const session = this.sessions.get(sessionId);
    if (!session) return;
    this.track(session, res);
    if (req.method === 'GET') this.watchListening(sessionId, res);
    await session.transport.handleRequest(req, res, body);
    if (req.method === 'POST') sweepAnsweredJsonStreams(session.transport);
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

  private async close(sessionId: string, session: McpHttpSession): Promise<void> {
    this.forget(sessionId);
    await session.transport.close().catch(() => undefined);
    await session.server.close().catch(() => undefined);
  }

  private forget(sessionId: string | undefined): void {
    if (sessionId === undefined) return;
    this.sessions.delete(sessionId);
    this.notifier.remove(sessionId);
  }

  private track(session: McpHttpSession, res: ServerResponse): void {
    session.lastActivity = Date.now();
    session.openResponses++;
    res.once('close', () => {
      session.openResponses--;
      session.lastActivity = Date.now();
    });
  }

  /**
   * A GET that the transport accepts (200) is the session's listening stream. Its stream is
   * registered before the headers go out, so a catch-up sent from writeHead reaches it.
   */
  private watchListening(sessionId: string, res: ServerResponse): void {
    const writeHead = res.writeHead.bind(res) as (...args: unknown[]) => ServerResponse;
    let opened = false;
    (res as unknown as { writeHead: (...args: unknown[]) => ServerResponse }).writeHead = (...args: unknown[]) => {
      const result = writeHead(...args);
      if (!opened && res.statusCode === 200) {
        opened = true;
        this.notifier.setListening(sessionId, true);
      }
      return result;
    };
    res.once('close', () => {
      if (opened) this.notifier.setListening(sessionId, false);
    });
  }
}
