import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { processesMentioning } from '../../support/processes/process-table';
import { usePrivatePostgres } from '../../support/postgres/use-private-postgres';
import { useReplicas, type StartedReplica } from '../../support/postgres/use-replicas';

jest.setTimeout(90_000);

const postgres = usePrivatePostgres();

/** docs/cli.md: a backend exits 0 within 10 s of SIGTERM; replicas signalled together are no exception. */
describe('replicas signalled at once', () => {
  const replicas = useReplicas(postgres, 'shutdown', ['--plugin-start-timeout-ms', '10000']);

  const tail = (replica: StartedReplica) => replica.backend.stderr().split('\n').slice(-25).join('\n');

  it('SIGTERM to both replicas at once: each exits 0 within 10 s, agentctls and plugins running on both', async () => {
    const a = await replicas.start('a');
    const b = await replicas.start('b');
    await a.api('POST', '/api/v1/plugins', { path: writeProbePlugin(join(replicas.sandbox.root, 'pkg'), 'e2e.stop', ['add_tag']) });
    await eventually(
      async () => {
        const copies = (await b.api<{ replicas: Array<{ status: string }> }>('GET', '/api/v1/plugins/e2e.stop')).body.replicas;
        return copies.length === 2 && copies.every((copy) => copy.status === 'active') ? true : undefined;
      },
      10_000,
      'a copy active on each replica',
    );
    // An agentctl launched by each replica, linked and serving.
    for (const [replica, task] of [
      [a, 'task-a'],
      [b, 'task-b'],
    ] as const) {
      const started = await replica.api<{ mcp: { url: string; token: string } }>('POST', '/api/v1/sessions', {
        task_id: task,
        workspace_id: 'ws-e2e',
        surface: 'kanban-task',
      });
      expect(started.status).toBe(201);
      const agent = await replicas.sandbox.connect(started.body.mcp.url, started.body.mcp.token);
      expect((await agent.call('kandev_e2e_stop_add_tag', { tag: task })).isError).toBeFalsy();
    }

    const signalledAt = Date.now();
    const exits = await Promise.all(
      [a, b].map(async (replica) => {
        const code = await Promise.race([
          replica.backend.stop('SIGTERM'),
          new Promise<never>((_, fail) =>
            setTimeout(() => fail(new Error(`replica ${replica.dataDir} still running 15 s after SIGTERM; its log ends:\n${tail(replica)}`)), 15_000),
          ),
        ]);
        return { code, ms: Date.now() - signalledAt };
      }),
    );
    for (const exit of exits) {
      expect(exit.code).toBe(0);
      expect(exit.ms).toBeLessThan(10_000);
    }
    // Each shut down in full, not cut short by the exit deadline: its last record says so.
    for (const replica of [a, b]) expect(replica.backend.stderr()).toContain('"msg":"backend stopped"');
    // The last replica to leave stops every agentctl: none is left serving with no backend to link to.
    const left = processesMentioning(replicas.sandbox.root).filter((p) => p.state !== 'Z');
    expect(left.map((p) => p.pid)).toEqual([]);
  });
});
