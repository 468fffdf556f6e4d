import { InMemoryAgentctlLauncher } from '../../../src/adapters/memory/in-memory-agentctl-launcher';
import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { ReconcileSessions } from '../../../src/application/sessions/reconcile-sessions';
import { CapturingLogger } from '../../support/capturing-logger';
import { sessionRecordFixture } from '../../support/fixtures';

async function launchedPid(launcher: InMemoryAgentctlLauncher): Promise<number> {
  const launched = await launcher.launch({
    identity: { task_id: 't', session_id: 'x', workspace_id: 'w', surface: 'kanban-task' },
    backendUrl: 'http://127.0.0.1:1',
    sessionToken: 's',
    mcpToken: 'm',
    controlToken: 'c',
    snapshot: { generation: '000000000001-00000000', revision: 1, tools: [] },
  });
  return launched.pid;
}

describe('ReconcileSessions (backend start after a crash)', () => {
  it('keeps a session whose agentctl still runs live, and marks it dead once that agentctl exits', async () => {
    const store = new InMemoryPluginStore();
    const launcher = new InMemoryAgentctlLauncher();
    const pid = await launchedPid(launcher);
    store.saveSession(sessionRecordFixture({ session_id: 'alive', status: 'live', launched: true, agentctl_pid: pid }));
    new ReconcileSessions(store, launcher, new SystemClock(), new CapturingLogger()).execute();
    expect(store.getSession('alive')?.status).toBe('live');
    launcher.exit(pid);
    await new Promise((resolve) => setImmediate(resolve));
    expect(store.getSession('alive')?.status).toBe('dead');
  });

  it('marks a launched session dead when its agentctl is gone, and leaves stopped and external sessions alone', () => {
    const store = new InMemoryPluginStore();
    store.saveSession(sessionRecordFixture({ session_id: 'gone', status: 'live', launched: true, agentctl_pid: 999 }));
    store.saveSession(sessionRecordFixture({ session_id: 'never-ready', status: 'starting', launched: true, agentctl_pid: null }));
    store.saveSession(sessionRecordFixture({ session_id: 'external', status: 'live', launched: false, agentctl_pid: null }));
    store.saveSession(sessionRecordFixture({ session_id: 'stopped', status: 'stopped', launched: true, agentctl_pid: 998 }));
    new ReconcileSessions(store, new InMemoryAgentctlLauncher(), new SystemClock(), new CapturingLogger()).execute();
    expect(store.getSession('gone')?.status).toBe('dead');
    expect(store.getSession('never-ready')?.status).toBe('dead');
    expect(store.getSession('external')?.status).toBe('live');
    expect(store.getSession('stopped')?.status).toBe('stopped');
  });
});
