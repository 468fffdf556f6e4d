import Database from 'better-sqlite3';
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { BackendWorld } from '../../support/processes/backend-world';

jest.setTimeout(60_000);

/** A process of the test that is nothing to Toolport: its pid stands in for a reused one. */
function bystander(marker: string): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', marker], { stdio: 'ignore' });
  return new Promise((resolve) => child.once('spawn', () => resolve(child)));
}

/**
 * After a backend is SIGKILLed, a launched agentctl's recorded pid may come to name another
 * process. The record keeps the agentctl's start time too, so the next backend neither follows
 * that process as the session's agentctl nor signals it when the session is stopped.
 */
describe('a recorded agentctl pid that now names another process', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-pid-reuse-' });
  let other: ChildProcess | undefined;

  afterAll(async () => {
    if (other && other.exitCode === null && other.signalCode === null) {
      const exited = new Promise((resolve) => other!.once('exit', resolve));
      other.kill('SIGKILL');
      await exited;
    }
    expect(await world.teardown()).toEqual([]);
  });

  it('is not taken for the session agentctl: the session is dead after the restart and session stop leaves the process running', async () => {
    const first = await world.start();
    const session = await world.session('kanban-task');
    const agentctlPid = await world.agentctlPid(session.session_id);
    await first.stop('SIGKILL');
    process.kill(agentctlPid, 'SIGKILL');

    // The pid now belongs to a process that started later than the agentctl did.
    other = await bystander(world.root);
    const db = new Database(join(world.dataDir, 'toolport.db'));
    try {
      db.prepare('UPDATE sessions SET agentctl_pid = ? WHERE session_id = ?').run(other.pid, session.session_id);
    } finally {
      db.close();
    }

    await world.start();
    const listed = (await world.api<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions')).body;
    expect(listed.find((s) => s.session_id === session.session_id)?.status).toBe('dead');

    const stopped = await world.api('DELETE', `/api/v1/sessions/${session.session_id}`);
    expect(stopped.status).toBe(204);
    // A stop signals at once, before it answers: had it signalled the bystander, it would be ending now.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(other.exitCode).toBeNull();
    expect(other.signalCode).toBeNull();
  });
});
