import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
import { DEFAULT_SETTINGS, type Settings } from '../../src/application/settings';
import { runAgentctl, type AgentctlOptions, type RunningAgentctl } from '../../src/composition/agentctl-main';
import type { CatalogSnapshot } from '../../src/domain/catalog';
import type { SessionIdentity } from '../../src/domain/session';
import { CapturingLogger } from '../support/capturing-logger';
import { TestBackendServer, TEST_IDENTITY, waitUntil } from '../support/test-backend';

export const MCP_TOKEN = 'mcp-token-for-tests';
export const CONTROL_TOKEN = 'control-token-for-tests';

export interface HarnessOptions {
  backend?: TestBackendServer;
  /** The launch snapshot; null for none (the agentctl waits for its first pull). */
  launchSnapshot?: CatalogSnapshot | null;
  identity?: Partial<SessionIdentity>;
  options?: Partial<AgentctlOptions>;
  settings?: Partial<Settings>;
}

/** A counting MCP client connected over Streamable HTTP. */
export interface CountingClient {
  client: Client;
  transport: StreamableHTTPClientTransport;
  listChanged(): number;
}

/** One in-process agentctl (runAgentctl, the real adapters) talking to a TestBackendServer. */
export class AgentctlHarness {
  readonly clients: CountingClient[] = [];
  private constructor(
    readonly agentctl: RunningAgentctl,
    readonly backend: TestBackendServer,
    readonly logger: CapturingLogger,
    readonly readyLines: string[],
    readonly fatal: Error[],
    private readonly tempDir: string,
    private readonly ownsBackend: boolean,
  ) {}

  static async start(options: HarnessOptions = {}): Promise<AgentctlHarness> {
    const backend = options.backend ?? (await TestBackendServer.start());
    const tempDir = mkdtempSync(join(tmpdir(), 'toolport-agentctl-'));
    const env: NodeJS.ProcessEnv = {
      TOOLPORT_SESSION_TOKEN: backend.sessionToken,
      TOOLPORT_MCP_TOKEN: MCP_TOKEN,
      TOOLPORT_CONTROL_TOKEN: CONTROL_TOKEN,
    };
    const identity = options.identity ?? TEST_IDENTITY;
    if (identity.task_id) env.TOOLPORT_TASK_ID = identity.task_id;
    if (identity.session_id) env.TOOLPORT_SESSION_ID = identity.session_id;
    if (identity.workspace_id) env.TOOLPORT_WORKSPACE_ID = identity.workspace_id;
    if (identity.surface) env.TOOLPORT_SURFACE = identity.surface;
    const launchSnapshot = options.launchSnapshot === undefined ? backend.backend.catalog : options.launchSnapshot;
    if (launchSnapshot) {
      env.TOOLPORT_SNAPSHOT_FILE = join(tempDir, 'snapshot.json');
      writeFileSync(env.TOOLPORT_SNAPSHOT_FILE, JSON.stringify(launchSnapshot));
    }
    const logger = new CapturingLogger();
    const readyLines: string[] = [];
    const fatal: Error[] = [];
    const agentctl = await runAgentctl(
      {
        backendUrl: backend.url,
        env,
        logger,
        writeReady: (line) => readyLines.push(line),
        onFatal: (error) => fatal.push(error),
        version: '0.0.0-test',
        ...options.options,
      },
      { ...DEFAULT_SETTINGS, ...options.settings },
    );
    return new AgentctlHarness(agentctl, backend, logger, readyLines, fatal, tempDir, options.backend === undefined);
  }

  get mcpUrl(): string {
    return this.agentctl.mcpUrl!;
  }

  /** Waits until the agentctl's link is up: it pulls the catalog right after its hello is answered. */
  async linked(pulls = 1): Promise<void> {
    await waitUntil(() => this.backend.backend.pulls >= pulls && this.backend.linkCount() > 0, 4000, 'the agentctl link');
  }

  async connectClient(token = MCP_TOKEN): Promise<CountingClient> {
    const client = new Client({ name: 'test-agent', version: '1.0.0' });
    let count = 0;
    client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      count++;
    });
    const transport = new StreamableHTTPClientTransport(new URL(this.mcpUrl), {
      requestInit: { headers: { Authorization: `Bearer ${token}` } },
    });
    await client.connect(transport);
    const counting = { client, transport, listChanged: () => count };
    this.clients.push(counting);
    return counting;
  }

  /** PUTs a snapshot to the control API; returns status and body. */
  async put(snapshot: unknown, token = CONTROL_TOKEN): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.agentctl.controlUrl}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(snapshot),
    });
    return { status: response.status, body: await response.json() };
  }

  async close(): Promise<void> {
    for (const { client } of this.clients.splice(0)) await client.close().catch(() => undefined);
    await this.agentctl.close();
    if (this.ownsBackend) await this.backend.stop();
    rmSync(this.tempDir, { recursive: true, force: true });
  }
}
