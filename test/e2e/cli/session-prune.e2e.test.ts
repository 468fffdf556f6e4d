import { join } from 'node:path';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(30_000);

const RAW_SOURCE = `require('./test/fixtures/plugins/status-plugin.js');`;

interface Listed {
  session_id: string;
  status: string;
}

/** Issue 30 item 8: every `tool call` leaves a stopped session, and `session prune` removes them. */
describe('toolport session prune', () => {
  const world = new BackendWorld([], { prefix: 'toolport-prune-' });
  const at = () => ['--data-dir', world.dataDir];
  const sessions = async (): Promise<Listed[]> => JSON.parse((await runToolport(['session', 'list', '--json', ...at()])).stdout) as Listed[];

  beforeAll(async () => {
    await world.start();
    await world.install(
      writePluginPackage(join(world.root, 'probe'), {
        manifest: {
          api_version: 1,
          id: 'prune.probe',
          version: '1.0.0',
          agent_tools: [{ name: 'echo', description: 'The echo tool.', surfaces: ['kanban-task'], input_schema: { type: 'object' } }],
        },
        source: RAW_SOURCE,
      }),
    );
  }, 60_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('removes the stopped sessions two tool calls left, and says how many', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await runToolport(['tool', 'call', 'kandev_prune_probe_echo', '--args', '{}', ...at()])).toMatchObject({ code: 0 });
    }
    expect((await sessions()).map((s) => s.status)).toEqual(['stopped', 'stopped']);

    // Both stopped moments ago: an age of an hour leaves them.
    expect(await runToolport(['session', 'prune', '--older-than', '1h', '--json', ...at()])).toMatchObject({ code: 0, stdout: '{\n  "removed": 0\n}\n' });
    expect(await sessions()).toHaveLength(2);

    expect(await runToolport(['session', 'prune', ...at()])).toMatchObject({ code: 0, stdout: 'Removed 2 stopped sessions\n' });
    expect(await sessions()).toEqual([]);
    expect(await runToolport(['session', 'list', ...at()])).toMatchObject({ code: 0, stdout: 'No sessions.\n' });
  });

  it('refuses an age it cannot read with a usage error naming the flag', async () => {
    const run = await runToolport(['session', 'prune', '--older-than', 'soon', ...at()]);
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('toolport: --older-than: expected seconds or a number with s, m, h or d (90s, 30m, 1h, 7d), got "soon"\n');
  });
});
