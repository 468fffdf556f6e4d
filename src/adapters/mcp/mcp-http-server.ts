import type { ApprovalMarks } from '../../application/agentctl/approval-marks';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ApplySnapshot } from '../../application/agentctl/apply-snapshot';
import type { CallTool } from '../../application/agentctl/call-tool';
import type { ListTools } from '../../application/agentctl/list-tools';
import type { ToolRegistry } from '../../application/agentctl/tool-registry';
import type { Logger } from '../../application/ports/logger';
import type { ClientApprovals } from './client-approvals';
import { ControlEndpoint } from './control-endpoint';
import { LoopbackGuard } from './http-guards';
import { LegacyHttpSessions } from './legacy-http-sessions';
import { McpEndpoint } from './mcp-endpoint';
import { createMcpToolServer } from './mcp-tool-server';
import { ModernHttpEndpoint } from './modern-http-endpoint';
import { ToolListNotifier } from './tool-list-notifier';

export interface McpHttpServerDeps {
  listTools: ListTools;
  callTool: CallTool;
  approvals: ClientApprovals;
  applySnapshot: ApplySnapshot;
  registry: ToolRegistry;
  logger: Logger;
  version: string;
  /** The tools an approval rule may hold (docs/approvals.md, "Marked tools"); none when absent. */
  marks?: ApprovalMarks;
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
    const makeServer = () => createMcpToolServer({ listTools: deps.listTools, callTool: deps.callTool, approvals: deps.approvals, version: deps.version });
    this.sessions = new LegacyHttpSessions(
      makeServer,
      this.notifier,
      deps.logger,
      options.idleSessionMs ?? 30 * 60_000,
      (name) => deps.marks?.has(name) === true,
    );
    this.modern = new ModernHttpEndpoint(makeServer, deps.registry, deps.logger);
    const mcp = options.serveMcp ? new McpEndpoint(this.guard, options.mcpToken, this.sessions, this.modern, deps.logger) : null;
    const control = new ControlEndpoint(this.guard, options.controlToken, options.serveControlApi === false ? null : deps.applySnapshot);
    this.http = createServer((req, res) => {
      if (mcp && isMcpPath(req.url)) mcp.handle(req, res);
      else control.handle(req, res);
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
}

function isMcpPath(url: string | undefined): boolean {
  const path = url === undefined ? '' : url.split('?', 1)[0];
  return path === '/mcp' || path === '/mcp/';
}
