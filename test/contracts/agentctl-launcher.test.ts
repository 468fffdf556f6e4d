import { InMemoryAgentctlLauncher } from '../../src/adapters/memory/in-memory-agentctl-launcher';
import type { AgentctlLaunchSpec } from '../../src/application/ports/agentctl-launcher';
import type { CatalogSnapshot } from '../../src/domain/catalog';
import { describeAgentctlLauncherContract } from './agentctl-launcher.contract';

function spec(sessionId: string, snapshot: CatalogSnapshot): AgentctlLaunchSpec {
  return {
    identity: { task_id: `task-of-${sessionId}`, session_id: sessionId, workspace_id: 'ws-1', surface: 'kanban-task' },
    backendUrl: 'http://127.0.0.1:9',
    sessionToken: `session-token-${sessionId}`,
    mcpToken: `mcp-token-${sessionId}`,
    snapshot,
  };
}

// The process launcher runs the same suite over real agentctls: test/e2e/agentctl/launcher-contract.e2e.test.ts.
describeAgentctlLauncherContract([
  [
    'InMemoryAgentctlLauncher',
    () => {
      const launcher = new InMemoryAgentctlLauncher();
      return {
        launcher,
        spec: async (sessionId, snapshot) => spec(sessionId, snapshot),
        doomedSpec: async () => {
          launcher.failNext(1);
          return spec('doomed', { generation: '000000000001-aaaaaaaa', revision: 1, tools: [] });
        },
        toolNames: async (launched) => (launcher.snapshotOf(launched.pid)?.tools ?? []).map((tool) => tool.exposed_name),
        runningCount: () => launcher.runningPids().length,
        crash: (agentctl) => launcher.exit(agentctl.pid, 1),
        cleanup: async () => undefined,
      };
    },
  ],
]);
