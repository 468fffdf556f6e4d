import { InMemoryAgentctlLauncher } from '../../../src/adapters/memory/in-memory-agentctl-launcher';
import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { SystemClock } from '../../../src/adapters/system/system-clock';
import { SoleBackend } from '../../../src/application/catalog/sole-backend';
import { ReconcileSessions } from '../../../src/application/sessions/reconcile-sessions';
import { RegisterAgentctl } from '../../../src/application/sessions/register-agentctl';
import { stopOne } from '../../../src/application/sessions/stop-session';
import { SessionLiveness } from '../../../src/application/sessions/session-liveness';
import type { PluginStore } from '../../../src/application/ports/plugin-store';
import type { Replication } from '../../../src/application/ports/replication';
import { CapturingLogger } from '../../support/capturing-logger';
import { sessionRecordFixture } from '../../support/fixtures';
import { waitUntil } from '../../support/invocation';

function liveness(store: PluginStore): SessionLiveness {
  return new SessionLiveness(store, new SystemClock(), 30_000, new CapturingLogger());
}

async function launchedAgentctl(launcher: InMemoryAgentctlLauncher): Promise<{ pid: number; startTime: number | null }> {
  const launched = await launcher.launch({
    identity: { task_id: 't', session_id: 'x', workspace_id: 'w', surface: 'kanban-task' },
    backendUrl: 'http://127.0.0.1:1',
    sessionToken: 's',
    mcpToken: 'm',
    snapshot: { generation: '000000000001-00000000', revision: 1, tools: [] },
  });
  return { pid: launched.pid, startTime: launched.startTime };
}

describe('ReconcileSessions (backend start after a crash)', () => {
  it('keeps a session whose agentctl still runs live, and marks it dead once that agentctl exits', async () => {
    const store = new InMemoryPluginStore();
    const launcher = new InMemoryAgentctlLauncher();
    const { pid, startTime } = await launchedAgentctl(launcher);
    await store.saveSession(sessionRecordFixture({ session_id: 'alive', status: 'live', launched: true, agentctl_pid: pid, agentctl_start_time: startTime }));
    await new ReconcileSessions(store, launcher, liveness(store), new SoleBackend(store), new CapturingLogger()).execute();
    expect((await store.getSession('alive'))?.status).toBe('live');
    launcher.exit(pid);
    await waitUntil(async () => (await store.getSession('alive'))?.status === 'dead', 2000, 'the session marked dead');
  });

  it('marks a launched session dead when its agentctl is gone, and leaves stopped and external sessions alone', async () => {
    const store = new InMemoryPluginStore();
    await store.saveSession(sessionRecordFixture({ session_id: 'gone', status: 'live', launched: true, agentctl_pid: 999 }));
    await store.saveSession(sessionRecordFixture({ session_id: 'never-ready', status: 'starting', launched: true, agentctl_pid: null }));
    await store.saveSession(sessionRecordFixture({ session_id: 'external', status: 'live', launched: false, agentctl_pid: null }));
    await store.saveSession(sessionRecordFixture({ session_id: 'stopped', status: 'stopped', launched: true, agentctl_pid: 998 }));
    await new ReconcileSessions(store, new InMemoryAgentctlLauncher(), liveness(store), new SoleBackend(store), new CapturingLogger()).execute();
    expect((await store.getSession('gone'))?.status).toBe('dead');
    expect((await store.getSession('never-ready'))?.status).toBe('dead');
    expect((await store.getSession('external'))?.status).toBe('live');
    expect((await store.getSession('stopped'))?.status).toBe('stopped');
  });

  it('treats a recorded pid that now belongs to another process (reused pid) as gone, and never stops that process', async () => {
    const store = new InMemoryPluginStore();
    const launcher = new InMemoryAgentctlLauncher();
    const { pid, startTime } = await launchedAgentctl(launcher);
    let otherExited = false;
    void launcher.watch({ pid, startTime })!.then(() => {
      otherExited = true;
    });
    await store.saveSession(
      sessionRecordFixture({ session_id: 'reused', status: 'live', launched: true, agentctl_pid: pid, agentctl_start_time: (startTime ?? 0) + 1 }),
    );
    await new ReconcileSessions(store, launcher, liveness(store), new SoleBackend(store), new CapturingLogger()).execute();
    expect((await store.getSession('reused'))?.status).toBe('dead');
    await stopOne((await store.getSession('reused'))!, store, launcher, new SystemClock());
    await new Promise((resolve) => setImmediate(resolve));
    expect(otherExited).toBe(false);
  });
});

describe('ReconcileSessions (a replica adopting the agentctls of one that is gone)', () => {
  const replicaB = { replicaId: () => 'r-b' } as unknown as Replication;

  it('takes only the sessions the predicate picks, names itself their follower and notices their agentctl exit', async () => {
    const store = new InMemoryPluginStore();
    const launcher = new InMemoryAgentctlLauncher();
    const { pid, startTime } = await launchedAgentctl(launcher);
    const other = await launchedAgentctl(launcher);
    const orphan = { status: 'live' as const, launched: true, agentctl_replica: 'r-a' };
    await store.saveSession(sessionRecordFixture({ session_id: 'of-a', ...orphan, agentctl_pid: pid, agentctl_start_time: startTime }));
    await store.saveSession(sessionRecordFixture({ session_id: 'gone-of-a', ...orphan, agentctl_pid: 999 }));
    await store.saveSession(
      sessionRecordFixture({ session_id: 'of-c', ...orphan, agentctl_replica: 'r-c', agentctl_pid: other.pid, agentctl_start_time: other.startTime }),
    );
    const follow = liveness(store);
    const reconcile = new ReconcileSessions(store, launcher, follow, replicaB, new CapturingLogger());
    expect(await reconcile.execute((session) => session.agentctl_replica === 'r-a')).toBe(2);
    expect(await store.getSession('of-a')).toMatchObject({ status: 'live', agentctl_replica: 'r-b' });
    expect(await store.getSession('gone-of-a')).toMatchObject({ status: 'dead', agentctl_replica: 'r-b' });
    expect(await store.getSession('of-c')).toMatchObject({ status: 'live', agentctl_replica: 'r-c' });
    // What this process follows already is not taken twice: a round over every session takes only of-c.
    expect(await reconcile.execute(() => true)).toBe(1);
    expect(await store.getSession('of-c')).toMatchObject({ status: 'live', agentctl_replica: 'r-b' });
    launcher.exit(pid);
    await waitUntil(async () => (await store.getSession('of-a'))?.status === 'dead', 2000, 'the adopted session marked dead');
    // Adopting never stops an agentctl.
    expect(launcher.watch(other)).toBeDefined();
  });
});

describe('RegisterAgentctl on a shared store', () => {
  it('names the replica that holds the link as the follower, and follows the exit of an agentctl another replica launched', async () => {
    const store = new InMemoryPluginStore();
    const launcher = new InMemoryAgentctlLauncher();
    const { pid, startTime } = await launchedAgentctl(launcher);
    await store.saveSession(
      sessionRecordFixture({
        session_id: 'from-a',
        status: 'live',
        launched: true,
        agentctl_replica: 'r-a',
        agentctl_pid: pid,
        agentctl_start_time: startTime,
      }),
    );
    const follow = liveness(store);
    const replicaB = { replicaId: () => 'r-b' } as unknown as Replication;
    await new RegisterAgentctl(store, new SystemClock(), new CapturingLogger(), replicaB, launcher, follow).execute('from-a');
    expect(await store.getSession('from-a')).toMatchObject({ status: 'live', agentctl_replica: 'r-b' });
    expect(follow.follows('from-a')).toBe(true);
    launcher.exit(pid);
    await waitUntil(async () => (await store.getSession('from-a'))?.status === 'dead', 2000, 'the session marked dead at its exit');
  });

  it('on a backend alone keeps the follower as it is and adds no watch', async () => {
    const store = new InMemoryPluginStore();
    const launcher = new InMemoryAgentctlLauncher();
    const { pid, startTime } = await launchedAgentctl(launcher);
    await store.saveSession(sessionRecordFixture({ session_id: 'own', status: 'live', launched: true, agentctl_pid: pid, agentctl_start_time: startTime }));
    const follow = liveness(store);
    await new RegisterAgentctl(store, new SystemClock(), new CapturingLogger(), new SoleBackend(store), launcher, follow).execute('own');
    expect(await store.getSession('own')).toMatchObject({ status: 'live', agentctl_replica: null });
    expect(follow.follows('own')).toBe(false);
  });
});
