import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ProcessAgentctlLauncher } from '../../../src/adapters/process/process-agentctl-launcher';
import type { AgentctlLaunchSpec } from '../../../src/application/ports/agentctl-launcher';
import type { CatalogSnapshot } from '../../../src/domain/catalog';
import { connectSdkClient } from '../../agentctl/sdk-clients';
import { describeAgentctlLauncherContract, type AgentctlLauncherFixture } from '../../contracts/agentctl-launcher.contract';
import { CapturingLogger } from '../../support/capturing-logger';
import { processesMentioning } from '../../support/processes/process-table';
import { killMentioning, waitForNoProcesses } from '../../support/processes/process-sweep';
import { agentctlArgs } from '../../support/processes/toolport-paths';
import { ScriptedBackend, TestBackendServer } from '../../support/test-backend';

/**
 * The process launcher over real `bin/toolport agentctl` processes (the built dist/; the
 * standalone dist/agentctl.js with TOOLPORT_TEST_AGENTCTL=bundle), each
 * linking to a backend of its own: the real agentctl WebSocket endpoint in front of a scripted
 * core that knows exactly that session. Every agentctl is started with `--data-dir <root>/data`,
 * so each one this fixture started can be found by its command line.
 */
async function processLauncher(): Promise<AgentctlLauncherFixture> {
  const root = mkdtempSync(join(tmpdir(), 'toolport-launcher-contract-'));
  const dataDir = join(root, 'data');
  const servers: TestBackendServer[] = [];
  const launcher = new ProcessAgentctlLauncher(
    {
      command: { executable: process.execPath, args: agentctlArgs() },
      runDir: join(root, 'run'),
      settingsEnv: { TOOLPORT_LOG_LEVEL: 'error' },
      readyTimeoutMs: 15_000,
      dataDir,
    },
    new CapturingLogger(),
  );

  async function spec(sessionId: string, snapshot: CatalogSnapshot): Promise<AgentctlLaunchSpec> {
    const backend = new ScriptedBackend();
    backend.identity = { task_id: `task-of-${sessionId}`, session_id: sessionId, workspace_id: 'ws-1', surface: 'kanban-task' };
    backend.sessionToken = `session-token-${sessionId}-${Math.random().toString(16).slice(2)}`;
    backend.catalog = snapshot;
    const server = await TestBackendServer.start(backend);
    servers.push(server);
    return {
      identity: { ...backend.identity },
      backendUrl: server.url,
      sessionToken: backend.sessionToken,
      mcpToken: `mcp-token-${sessionId}-${Date.now()}`,
      snapshot,
    };
  }

  return {
    launcher,
    spec,
    // A launch snapshot the agentctl refuses (docs/agentctl.md): it exits before it is ready.
    doomedSpec: async () => ({
      ...(await spec('doomed', { generation: '000000000001-aaaaaaaa', revision: 1, tools: [] })),
      snapshot: { generation: 'not a generation', revision: 0, tools: [] },
    }),
    toolNames: async (launched, launchSpec) => {
      const client = await connectSdkClient('v1', { http: launched.mcpUrl, token: launchSpec.mcpToken });
      try {
        return (await client.listTools()).map((tool) => tool.name);
      } finally {
        await client.close();
      }
    },
    runningCount: () => processesMentioning(dataDir).filter((entry) => entry.state !== 'Z').length,
    crash: (agentctl) => process.kill(agentctl.pid, 'SIGKILL'),
    cleanup: async () => {
      killMentioning(dataDir);
      const left = await waitForNoProcesses(dataDir);
      await Promise.all(servers.map((server) => server.stop()));
      rmSync(root, { recursive: true, force: true });
      expect(left).toEqual([]);
    },
  };
}

describeAgentctlLauncherContract([['ProcessAgentctlLauncher (real agentctl processes)', processLauncher]], 40_000);
