import { Container } from 'inversify';
import { ApplySnapshot } from '../application/agentctl/apply-snapshot';
import { CallPluginTool } from '../application/agentctl/call-plugin-tool';
import { CallTool } from '../application/agentctl/call-tool';
import { HeldSchemaMemo } from '../application/agentctl/held-schema-memo';
import { GetTaskContext } from '../application/agentctl/get-task-context';
import { ListTools } from '../application/agentctl/list-tools';
import { PullCatalog } from '../application/agentctl/pull-catalog';
import { AgentctlSession } from '../application/agentctl/session-identity';
import { ToolRegistry } from '../application/agentctl/tool-registry';
import { BackendLink } from '../application/ports/backend-link';
import { Logger } from '../application/ports/logger';
import { Tracer } from '../application/ports/tracer';
import type { Settings } from '../application/settings';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { McpHttpServer, type McpHttpServerOptions } from '../adapters/mcp/mcp-http-server';
import { McpStdioServer } from '../adapters/mcp/mcp-stdio-server';
import { SilentTracer } from '../adapters/otel/silent-tracer';
import { WsBackendLink } from '../adapters/websocket/ws-backend-link';
import { SchemaCompiler } from '../domain/schema-compiler';
import type { SessionIdentity } from '../domain/session';

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
  /** Where the spans of tool calls go; by default nowhere. */
  tracer?: Tracer;
}

/** The agentctl process role: one singleton of each piece. */
export function createAgentctlContainer(config: AgentctlConfig): Container {
  const c = new Container({ defaultScope: 'Singleton' });
  c.bind(Logger).toConstantValue(config.logger);
  c.bind(Tracer).toConstantValue(config.tracer ?? new SilentTracer());
  c.bind(HeldSchemaMemo).toResolvedValue(() => new HeldSchemaMemo(new AjvSchemaCompiler()));
  c.bind(SchemaCompiler).toService(HeldSchemaMemo);
  c.bind(AgentctlSession).toResolvedValue(() => new AgentctlSession(config.launchedAs));
  c.bind(ToolRegistry).toResolvedValue(() => new ToolRegistry());
  c.bind(BackendLink).toResolvedValue(
    (logger: Logger) =>
      new WsBackendLink({
        backendUrl: config.backend.url,
        dataDir: config.backend.dataDir,
        sessionToken: config.backend.sessionToken,
        ca: config.backend.ca,
        onCertificateProblem: config.backend.onCertificateProblem,
        requestTimeoutMs: 10_000,
        invokeTimeoutMs: config.settings.toolTimeoutMs + config.invokeMarginMs,
        logger: logger.child({ component: 'backend-link' }),
      }),
    [Logger],
  );
  c.bind(ApplySnapshot).toResolvedValue(
    (registry: ToolRegistry, session: AgentctlSession, schemas: HeldSchemaMemo, logger: Logger) =>
      new ApplySnapshot(registry, session, schemas, config.settings, logger),
    [ToolRegistry, AgentctlSession, HeldSchemaMemo, Logger],
  );
  c.bind(PullCatalog).toResolvedValue(
    (link: BackendLink, session: AgentctlSession, apply: ApplySnapshot, logger: Logger) => new PullCatalog(link, session, apply, logger),
    [BackendLink, AgentctlSession, ApplySnapshot, Logger],
  );
  c.bind(CallPluginTool).toResolvedValue(
    (registry: ToolRegistry, link: BackendLink, schemas: SchemaCompiler, logger: Logger) => new CallPluginTool(registry, link, schemas, logger),
    [ToolRegistry, BackendLink, SchemaCompiler, Logger],
  );
  c.bind(GetTaskContext).toResolvedValue((session: AgentctlSession) => new GetTaskContext(session, config.firstSnapshotWaitMs), [AgentctlSession]);
  c.bind(CallTool).toResolvedValue(
    (registry: ToolRegistry, context: GetTaskContext, plugin: CallPluginTool, tracer: Tracer) =>
      new CallTool(registry, context, plugin, config.firstSnapshotWaitMs, tracer),
    [ToolRegistry, GetTaskContext, CallPluginTool, Tracer],
  );
  c.bind(ListTools).toResolvedValue((registry: ToolRegistry) => new ListTools(registry, config.firstSnapshotWaitMs), [ToolRegistry]);
  c.bind(McpHttpServer).toResolvedValue(
    (listTools: ListTools, callTool: CallTool, applySnapshot: ApplySnapshot, registry: ToolRegistry, logger: Logger) =>
      new McpHttpServer({ listTools, callTool, applySnapshot, registry, logger, version: config.version }, config.http),
    [ListTools, CallTool, ApplySnapshot, ToolRegistry, Logger],
  );
  c.bind(McpStdioServer).toResolvedValue(
    (listTools: ListTools, callTool: CallTool, registry: ToolRegistry, logger: Logger) =>
      new McpStdioServer({ listTools, callTool, registry, logger, version: config.version }),
    [ListTools, CallTool, ToolRegistry, Logger],
  );
  return c;
}
