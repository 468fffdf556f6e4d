import { join } from 'node:path';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';

jest.setTimeout(180_000);

/**
 * docs/operations.md: SIGTERM stops the agentctls and plugins a backend started, marks their sessions
 * `stopped`, removes backend.json and exits 0. A race once made it exit 1 in 2 of 5 runs
 * (an agentctl's exit was handled after the store had closed), so it is tried many times.
 */
describe('backend: graceful shutdown with live sessions', () => {
  let world: BackendWorld;

  beforeEach(() => {
    world = new BackendWorld();
  });

  afterEach(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('exits 0 every time, 20 times in a row, with launched and external sessions live and a plugin running', async () => {
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'pkg'), 'e2e.stop', ['add_tag']));
    const external = await world.session('kanban-task', 'task-external', false);
    const agentctl = await world.startAgentctl({
      backendUrl: external.agentctl!.backend_url,
      args: ['--data-dir', world.dataDir],
      tokens: { session: external.agentctl!.session_token, mcp: 'external-mcp', control: 'external-control' },
    });
    const launched: string[] = [];
    for (let round = 0; round < 20; round += 1) {
      if (round > 0) await world.start();
      const session = await world.session('kanban-task', `task-${round}`);
      launched.push(session.session_id);
      const exitCode = await world.backend.stop('SIGTERM');
      expect({ round, exitCode, errors: errorLines(world.backend.stderr()) }).toEqual({ round, exitCode: 0, errors: [] });
      // What it started is gone; the agentctl started elsewhere carries on.
      expect(
        processesMentioning(world.root)
          .filter((p) => p.state !== 'Z')
          .map((p) => p.pid),
      ).toEqual([agentctl.pid]);
    }
    await world.start();
    const sessions = (await world.api<Array<{ session_id: string; status: string }>>('GET', '/api/v1/sessions')).body;
    expect(sessions.filter((s) => launched.includes(s.session_id)).map((s) => s.status)).toEqual(launched.map(() => 'stopped'));
  });
});

/** Log lines at error level or above, and anything that is not a log line (a stack trace). */
function errorLines(stderr: string): string[] {
  return stderr
    .split('\n')
    .filter((line) => line.trim() !== '')
    .filter((line) => {
      try {
        return (JSON.parse(line) as { level?: number }).level! >= 50;
      } catch {
        return true;
      }
    });
}
