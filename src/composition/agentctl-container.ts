import { Container } from 'inversify';
import { AnnounceReadiness } from '../application/agentctl/announce-readiness';
import { ApplyLaunchSnapshot } from '../application/agentctl/apply-launch-snapshot';
import { ApplySnapshot } from '../application/agentctl/apply-snapshot';
import { ApprovalMarks } from '../application/agentctl/approval-marks';
import { CallPluginTool } from '../application/agentctl/call-plugin-tool';
import { CallTool } from '../application/agentctl/call-tool';
import { FollowBackend } from '../application/agentctl/follow-backend';
import { GetTaskContext } from '../application/agentctl/get-task-context';
import { HeldSchemaMemo } from '../application/agentctl/held-schema-memo';
import { ListTools } from '../application/agentctl/list-tools';
import { PullCatalog } from '../application/agentctl/pull-catalog';
import { AgentctlSession } from '../application/agentctl/session-identity';
import { ToolRegistry } from '../application/agentctl/tool-registry';
import { BackendLink } from '../application/ports/backend-link';
import { Logger } from '../application/ports/logger';
import { Tracer } from '../application/ports/tracer';
import type { Settings } from '../application/settings';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { ClientApprovals } from '../adapters/mcp/client-approvals';
import { McpHttpServer, type McpHttpServerOptions } from '../adapters/mcp/mcp-http-server';
import { McpStdioServer } from '../adapters/mcp/mcp-stdio-server';
import { SilentTracer } from '../adapters/otel/silent-tracer';
import { WsBackendLink } from '../adapters/websocket/ws-backend-link';
import { SchemaCompiler } from '../domain/schema-compiler';
import type { SessionIdentity } from '../domain/session';
import { Disposals } from './disposals';
import { TRACE_FLUSH_MS } from './tracing';

/** Everything the agentctl role is built from, resolved from flags and environment. */
export interface AgentctlConfig {
  settings: Settings;
  logger: Logger;
  version: string;
  /** What the launch says about the session (complete when the backend launched it). */
  launchedAs: Partial<SessionIdentity>;
  backend: { url?: string; dataDir?: string; sessionToken: string; ca?: string; onCertificateProblem?: (message: string) => void };
  /** The HTTP listener: MCP at /mcp unless `serveMcp` is false (stdio mode), and the control API. */
  http: McpHttpServerOptions;
  stdio: boolean;
  /** How long tools/list and tools/call wait for a first snapshot before serving built-ins only. */
  firstSnapshotWaitMs: number;
  /** Margin over the tool timeout before the link gives up on an invoke. */
  invokeMarginMs: number;
  /** Where the spans of tool calls go (started already); by default nowhere. */
  tracer?: Tracer;
}

/** How long a closing agentctl waits for the backend to answer its goodbye. */
const GOODBYE_WAIT_MS = 1000;

/**
 * The agentctl process role: one singleton of each piece. Each group registers the disposal
 * of what it binds, and `Disposals.disposeAll()` runs them in reverse order: the link says
 * goodbye and closes first (the backend marks the session dead at once, calls in flight end),
 * then the MCP servers close, then the last spans are exported.
 */
export function createAgentctlContainer(config: AgentctlConfig): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  const disposals = new Disposals(config.logger);
  c.bind(Disposals).toConstantValue(disposals);
  c.bind(Logger).toConstantValue(config.logger);
  bindTracing(c, config, disposals);
  bindCatalog(c, config);
  bindMcpServers(c, config, disposals);
  bindLink(c, config, disposals);
  return c;
}

function bindTracing(c: Container, config: AgentctlConfig, disposals: Disposals): void {
  const tracer = config.tracer ?? new SilentTracer();
  c.bind(Tracer).toConstantValue(tracer);
  disposals.add('traces', () => tracer.shutdown(TRACE_FLUSH_MS));
}

/** The snapshot held and the session's view of it. */
function bindCatalog(c: Container, config: AgentctlConfig): void {
  c.bind(HeldSchemaMemo).toResolvedValue(() => new HeldSchemaMemo(new AjvSchemaCompiler()));
  c.bind(SchemaCompiler).toService(HeldSchemaMemo);
  c.bind(AgentctlSession).toResolvedValue(() => new AgentctlSession(config.launchedAs));
  c.bind(ToolRegistry).toResolvedValue(() => new ToolRegistry());
  c.bind(ApplySnapshot).toResolvedValue(
    (registry: ToolRegistry, session: AgentctlSession, schemas: HeldSchemaMemo, logger: Logger) =>
      new ApplySnapshot(registry, session, schemas, config.settings, logger),
    [ToolRegistry, AgentctlSession, HeldSchemaMemo, Logger],
  );
  c.bind(ApplyLaunchSnapshot).toResolvedValue(
    (session: AgentctlSession, apply: ApplySnapshot) => new ApplyLaunchSnapshot(session, apply),
    [AgentctlSession, ApplySnapshot],
  );
}

/** The agent's side: the tool use cases and the MCP servers over them (HTTP, stdio). */
function bindMcpServers(c: Container, config: AgentctlConfig, disposals: Disposals): void {
  const wait = config.firstSnapshotWaitMs;
  c.bind(CallPluginTool).toResolvedValue(
    (registry: ToolRegistry, link: BackendLink, schemas: SchemaCompiler, logger: Logger, session: AgentctlSession) =>
      new CallPluginTool(registry, link, schemas, logger, session, config.settings.approvalProgressMs),
    [ToolRegistry, BackendLink, SchemaCompiler, Logger, AgentctlSession],
  );
  c.bind(GetTaskContext).toResolvedValue((session: AgentctlSession) => new GetTaskContext(session, wait), [AgentctlSession]);
  c.bind(CallTool).toResolvedValue(
    (registry: ToolRegistry, context: GetTaskContext, plugin: CallPluginTool, tracer: Tracer) => new CallTool(registry, context, plugin, wait, tracer),
    [ToolRegistry, GetTaskContext, CallPluginTool, Tracer],
  );
  c.bind(ListTools).toResolvedValue((registry: ToolRegistry) => new ListTools(registry, wait), [ToolRegistry]);
  // One for both transports: a 2026-07-28 retry may reach another server instance than its first request.
  c.bind(ClientApprovals).toResolvedValue((session: AgentctlSession) => new ClientApprovals(() => session.current()?.session_id ?? ''), [AgentctlSession]);
  let http: McpHttpServer | undefined;
  c.bind(McpHttpServer).toResolvedValue(
    (
      listTools: ListTools,
      callTool: CallTool,
      approvals: ClientApprovals,
      applySnapshot: ApplySnapshot,
      registry: ToolRegistry,
      logger: Logger,
      marks: ApprovalMarks,
    ) => (http = new McpHttpServer({ listTools, callTool, approvals, applySnapshot, registry, logger, version: config.version, marks }, config.http)),
    [ListTools, CallTool, ClientApprovals, ApplySnapshot, ToolRegistry, Logger, ApprovalMarks],
  );
  disposals.add('MCP over HTTP', () => http?.close());
  let stdio: McpStdioServer | undefined;
  c.bind(McpStdioServer).toResolvedValue(
    (listTools: ListTools, callTool: CallTool, approvals: ClientApprovals, registry: ToolRegistry, logger: Logger) =>
      (stdio = new McpStdioServer({ listTools, callTool, approvals, registry, logger, version: config.version })),
    [ListTools, CallTool, ClientApprovals, ToolRegistry, Logger],
  );
  disposals.add('MCP over stdio', () => stdio?.close());
}

/** The backend's side: the link, and the use cases that follow the backend over it. */
function bindLink(c: Container, config: AgentctlConfig, disposals: Disposals): void {
  let made: BackendLink | undefined;
  c.bind(ApprovalMarks).toConstantValue(new ApprovalMarks());
  c.bind(BackendLink).toResolvedValue(
    (logger: Logger, marks: ApprovalMarks) =>
      (made = new WsBackendLink({
        backendUrl: config.backend.url,
        dataDir: config.backend.dataDir,
        sessionToken: config.backend.sessionToken,
        ca: config.backend.ca,
        onCertificateProblem: config.backend.onCertificateProblem,
        requestTimeoutMs: 10_000,
        invokeTimeoutMs: config.settings.toolTimeoutMs + config.invokeMarginMs,
        logger: logger.child({ component: 'backend-link' }),
        marks,
      })),
    [Logger, ApprovalMarks],
  );
  disposals.add('backend link', async () => {
    await made?.goodbye(GOODBYE_WAIT_MS);
    await made?.close();
  });
  c.bind(PullCatalog).toResolvedValue(
    (link: BackendLink, session: AgentctlSession, apply: ApplySnapshot, logger: Logger) => new PullCatalog(link, session, apply, logger),
    [BackendLink, AgentctlSession, ApplySnapshot, Logger],
  );
  c.bind(FollowBackend).toResolvedValue(
    (link: BackendLink, pull: PullCatalog, apply: ApplySnapshot) => new FollowBackend(link, pull, apply),
    [BackendLink, PullCatalog, ApplySnapshot],
  );
  c.bind(AnnounceReadiness).toResolvedValue((registry: ToolRegistry, link: BackendLink) => new AnnounceReadiness(registry, link), [ToolRegistry, BackendLink]);
}
