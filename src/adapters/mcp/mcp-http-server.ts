import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import express, { type NextFunction, type Request, type Response } from 'express';
import { classifyInboundRequest, isInitializeRequest } from '@modelcontextprotocol/server';
import type { ApplySnapshot } from '../../application/agentctl/apply-snapshot';
import type { CallTool } from '../../application/agentctl/call-tool';
import type { ListTools } from '../../application/agentctl/list-tools';
import type { ToolRegistry } from '../../application/agentctl/tool-registry';
import type { Logger } from '../../application/ports/logger';
import { errorBody, handleControlPush, putPluginTools, type ControlPushChecks } from './control-api';
import { LoopbackGuard, bearerMatches } from './http-guards';
import { LegacyHttpSessions } from './legacy-http-sessions';
import { createMcpToolServer } from './mcp-tool-server';
import { ModernHttpEndpoint } from './modern-http-endpoint';
import { ToolListNotifier } from './tool-list-notifier';
import { toWebRequest } from './web-exchange';

export interface McpHttpServerDeps {
  listTools: ListTools;
  callTool: CallTool;
  applySnapshot: ApplySnapshot;
  registry: ToolRegistry;
  logger: Logger;
  version: string;
}

export interface McpHttpServerOptions {
  host: string;
  /** 0 picks a free port. */
  port: number;
  /** Serve MCP at /mcp (false in stdio mode, where only the control API listens). */
  serveMcp: boolean;
  mcpToken: string;
  controlToken: string;
  /** Serve `PUT /api/v1/mcp/plugin-tools` (default true; catalog pushes also arrive over the backend link). */
  serveControlApi?: boolean;
  allowedOrigins: readonly string[];
  /** An MCP session with nothing open and no request for this long is closed. */
  idleSessionMs?: number;
}

const JSONRPC_SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };
const JSONRPC_NO_SESSION = { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no valid session id' }, id: null };

/**
 * agentctl's HTTP listener: MCP over Streamable HTTP at `/mcp` (bearer MCP token) in both eras
 * (2025 sessions and 2026-07-28 stateless requests, told apart by the SDK's own classifier),
 * the control API `PUT /api/v1/mcp/plugin-tools` (bearer control token, optional) and
 * `GET /healthz`, every request behind the Host/Origin checks.
 */
export class McpHttpServer {
  private readonly guard: LoopbackGuard;
  private readonly notifier: ToolListNotifier;
  private readonly sessions: LegacyHttpSessions;
  private readonly modern: ModernHttpEndpoint;
  private readonly http: HttpServer;
  private reaper: NodeJS.Timeout | undefined;
  private boundPort = 0;

  constructor(
    private readonly deps: McpHttpServerDeps,
    private readonly options: McpHttpServerOptions,
  ) {
    this.guard = new LoopbackGuard(options.host, options.allowedOrigins);
    this.notifier = new ToolListNotifier(deps.registry, deps.logger);
    const makeServer = () => createMcpToolServer({ listTools: deps.listTools, callTool: deps.callTool, version: deps.version });
    this.sessions = new LegacyHttpSessions(makeServer, this.notifier, deps.logger, options.idleSessionMs ?? 30 * 60_000);
    this.modern = new ModernHttpEndpoint(makeServer, deps.registry, deps.logger);
    const app = this.app();
    const checks: ControlPushChecks = {
      admitted: (req) =>
        this.guard.hostAllowed(req.headers.host) &&
        this.guard.originAllowed(req.headers.origin) &&
        bearerMatches(req.headers.authorization, options.controlToken),
    };
    const control = options.serveControlApi !== false;
    this.http = createServer((req, res) => {
      if (!control || !handleControlPush(req, res, deps.applySnapshot, checks)) app(req, res);
    });
  }

  async listen(): Promise<{ port: number; baseUrl: string; mcpUrl: string }> {
    await new Promise<void>((resolve, reject) => {
      this.http.once('error', reject);
      this.http.listen(this.options.port, this.options.host, () => {
        this.http.off('error', reject);
        resolve();
      });
    });
    this.boundPort = (this.http.address() as AddressInfo).port;
    this.guard.setPort(this.boundPort);
    const idleMs = this.options.idleSessionMs ?? 30 * 60_000;
    this.reaper = setInterval(() => this.sessions.reapIdle(), Math.max(1000, Math.min(60_000, idleMs / 2)));
    this.reaper.unref();
    const baseUrl = `http://127.0.0.1:${this.boundPort}`;
    return { port: this.boundPort, baseUrl, mcpUrl: `${baseUrl}/mcp` };
  }

  /** Open MCP sessions (for tests and health). */
  sessionCount(): number {
    return this.sessions.count();
  }

  async close(): Promise<void> {
    clearInterval(this.reaper);
    this.notifier.close();
    await this.modern.close();
    await this.sessions.closeAll();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private app(): express.Express {
    const app = express();
    app.disable('x-powered-by');
    app.use((req, res, next) => {
      if (!this.guard.hostAllowed(req.headers.host)) {
        res.status(403).json(errorBody('FORBIDDEN', 'Host not allowed'));
      } else if (!this.guard.originAllowed(req.headers.origin)) {
        res.status(403).json(errorBody('FORBIDDEN', 'Origin not allowed'));
      } else next();
    });
    app.get('/healthz', (_req, res) => {
      res.json({ status: 'ok' });
    });
    if (this.options.serveControlApi !== false) {
      app.put(
        '/api/v1/mcp/plugin-tools',
        this.bearer(this.options.controlToken),
        express.json({ limit: '64mb' }),
        putPluginTools(this.deps.applySnapshot),
      );
    }
    if (this.options.serveMcp) {
      app.all(
        '/mcp',
        this.bearer(this.options.mcpToken),
        express.json({ limit: '8mb' }),
        (req, res) => this.handleMcp(req, res),
      );
    }
    app.use((error: unknown, req: Request, res: Response, next: NextFunction) => {
      if (res.headersSent) return next(error);
      const status = typeof (error as { status?: unknown }).status === 'number' ? (error as { status: number }).status : 500;
      if (req.path === '/mcp') {
        res.status(status === 500 ? 500 : 400).json({ jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null });
      } else if (status === 413) {
        res.status(413).json(errorBody('BAD_REQUEST', 'request body is too large'));
      } else {
        res.status(status === 500 ? 500 : 400).json(errorBody(status === 500 ? 'INTERNAL' : 'BAD_REQUEST', status === 500 ? 'internal error' : 'body is not valid JSON'));
      }
    });
    return app;
  }

  /** One refusal body for both tokens, so a caller without one learns nothing about which endpoint it hit. */
  private bearer(token: string) {
    return (req: Request, res: Response, next: NextFunction): void => {
      if (bearerMatches(req.headers.authorization, token)) return next();
      res.setHeader('www-authenticate', 'Bearer');
      res.status(401).json(errorBody('UNAUTHORIZED', 'missing or invalid bearer token'));
    };
  }

  private async handleMcp(req: Request, res: Response): Promise<void> {
    try {
      const body: unknown = req.body;
      if (!this.isLegacy(req, body)) {
        await this.modern.handle(req, res, body);
        return;
      }
      const request = toWebRequest(req, res, `http://${req.headers.host}`);
      const header = req.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      if (sessionId !== undefined) {
        if (!this.sessions.has(sessionId)) {
          res.status(404).json(JSONRPC_SESSION_NOT_FOUND);
          return;
        }
        await this.sessions.handle(sessionId, request, res, body);
        return;
      }
      if (req.method === 'POST' && isInitializeRequest(body)) {
        await this.sessions.open(request, res, body);
        return;
      }
      res.status(400).json(JSONRPC_NO_SESSION);
    } catch (error) {
      this.deps.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'MCP request failed');
      if (!res.headersSent) res.status(500).json({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null });
    }
  }

  /** The SDK's own era decision: 2025 traffic has no per-request `_meta` claim of a revision. */
  private isLegacy(req: Request, body: unknown): boolean {
    const outcome = classifyInboundRequest({
      httpMethod: req.method,
      protocolVersionHeader: header(req, 'mcp-protocol-version'),
      mcpMethodHeader: header(req, 'mcp-method'),
      mcpNameHeader: header(req, 'mcp-name'),
      ...(body === undefined ? {} : { body }),
    });
    return outcome.kind === 'legacy';
  }
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
