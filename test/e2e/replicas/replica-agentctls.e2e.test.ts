import { eventually } from '../../support/eventually';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useReplicas, type StartedReplica } from '../../support/postgres/use-replicas';
import { isProcessAlive } from '../../../src/adapters/shared/process-liveness';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();

interface SessionView {
  session_id: string;
  status: string;
  agentctl_pid: number | null;
}

/** docs/operations.md §10: the agentctls of a replica that died are adopted by a live one, which notices their exits. */
describe('replicas: agentctls of a replica that is gone', () => {
  const replicas = useReplicas(postgres, 'agentctls');

  const sessionOn = async (replica: StartedReplica, id: string) =>
    (await replica.api<SessionView[]>('GET', '/api/v1/sessions')).body.find((s) => s.session_id === id);

  it('a session whose agentctl exits after its replica was killed is dead on the other within 15 s, not live for ever', async () => {
    const a = await replicas.start('a');
    const b = await replicas.start('b');
    const started = await a.api<{ session_id: string }>('POST', '/api/v1/sessions', { task_id: 'task-a', workspace_id: 'ws-e2e', surface: 'kanban-task' });
    expect(started.status).toBe(201);
    const { session_id: id } = started.body;
    const pid = (await sessionOn(a, id))!.agentctl_pid!;
    expect(isProcessAlive(pid)).toBe(true);
    expect((await sessionOn(b, id))?.status).toBe('live');

    // A dies without a word, then its agentctl goes before it could link to B.
    await a.backend.stop('SIGKILL');
    process.kill(pid, 'SIGKILL');
    await eventually(() => !isProcessAlive(pid), 5000, 'the agentctl to exit');
    const killedAt = Date.now();
    // B counts A gone 8 s after its last heartbeat, then adopts its agentctls (docs/operations.md §10).
    await eventually(async () => (await sessionOn(b, id))?.status === 'dead', 15_000, 'the session to be dead on B');
    expect(Date.now() - killedAt).toBeLessThan(15_000);
  });

  it('an agentctl still running when it is adopted is followed: its exit makes the session dead at once; a replica joining later leaves it alone', async () => {
    const a = await replicas.start('a');
    const b = await replicas.start('b');
    const started = await a.api<{ session_id: string }>('POST', '/api/v1/sessions', {
      task_id: 'task-a',
      workspace_id: 'ws-e2e',
      surface: 'kanban-task',
    });
    const { session_id: id } = started.body;
    const pid = (await sessionOn(a, id))!.agentctl_pid!;
    await a.backend.stop('SIGKILL');
    // Past the time B takes to count A gone; the agentctl, linked to B by now or not, still runs.
    await new Promise((resolve) => setTimeout(resolve, 11_000));
    expect(isProcessAlive(pid)).toBe(true);
    expect((await sessionOn(b, id))?.status).toBe('live');
    // A replica joining live ones reconciles sessions too, but stops no agentctl it did not launch.
    const c = await replicas.start('c');
    expect((await sessionOn(c, id))?.status).toBe('live');
    expect(isProcessAlive(pid)).toBe(true);

    process.kill(pid, 'SIGKILL');
    await eventually(async () => (await sessionOn(b, id))?.status === 'dead', 3000, 'the session to be dead on B at once');
  });
});
