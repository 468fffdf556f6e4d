import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { runTool, toolportOk } from './author-tools';
import { pluginFolders } from '../../support/processes/toolport-paths';

/** Counts calls in its Host state and in a file of its data dir; `variant` tells two builds apart. */
function counterSource(variant: string): string {
  return `
import { appendFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '@toolport/plugin-sdk';
void serve({ tools: { hello: async (args, context) => {
  const count = ((await context.host.state.get<number>('count')) ?? 0) + 1;
  await context.host.state.set('count', count);
  const file = join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'calls.log');
  appendFileSync(file, '${variant}\\n');
  return '${variant} ' + String(args.name) + ' call ' + count + ', lines ' + readFileSync(file, 'utf8').trim().split('\\n').length;
} } });
`;
}

/** `install --force` keeps what the plugin kept; `plugin validate` says what install says, without a backend. */
describe('install --force and plugin validate', () => {
  const world = new BackendWorld(['--health-interval-ms', '60000'], { prefix: 'toolport-force-' });
  let dir: string;
  const call = async () => (await toolportOk(['tool', 'call', 'kandev_author_counter_hello', '--args', '{"name": "Ada"}'], world.dataDir)).stdout;
  const rebuild = async (source: string) => {
    writeFileSync(join(dir, 'src', 'index.ts'), source);
    expect(await runTool('npm', ['run', 'build'], dir)).toMatchObject({ code: 0 });
  };

  beforeAll(async () => {
    await world.start();
    await toolportOk(['plugin', 'init', 'counter', '--id', 'author.counter'], world.dataDir, world.root);
    dir = join(world.root, 'counter');
    const manifest = readFileSync(join(dir, 'manifest.yaml'), 'utf8').replace('runtime:', 'capabilities:\n  state: true\nruntime:');
    writeFileSync(join(dir, 'manifest.yaml'), manifest);
    expect(await runTool('npm', ['install', '--offline', '--no-audit', '--no-fund'], dir)).toMatchObject({ code: 0 });
  }, 120_000);

  afterAll(async () => {
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 30_000);

  it('reinstalls the same version with the new build, keeping its Host state and data dir; a build that fails to start leaves the old one serving', async () => {
    await rebuild(counterSource('first'));
    await toolportOk(['plugin', 'install', 'package', '--force'], world.dataDir, dir);
    expect(await call()).toBe('first Ada call 1, lines 1\n');

    await rebuild(counterSource('second'));
    const forced = await runToolport(['plugin', 'install', 'package', '--force', '--json', '--data-dir', world.dataDir], { cwd: dir });
    expect(forced.code).toBe(0);
    expect(JSON.parse(forced.stdout)).toMatchObject({ id: 'author.counter', version: '0.1.0', status: 'active' });
    expect(await call()).toBe('second Ada call 2, lines 2\n');

    // Without --force the same version is still refused.
    const plain = await runToolport(['plugin', 'install', 'package', '--json', '--data-dir', world.dataDir], { cwd: dir });
    expect(plain.code).toBe(1);
    expect(JSON.parse(plain.stdout)).toMatchObject({ error: { code: 'ALREADY_INSTALLED' } });

    await rebuild("process.stderr.write('cannot start\\n'); process.exit(3);\n");
    const broken = await runToolport(['plugin', 'install', 'package', '--force', '--json', '--data-dir', world.dataDir], { cwd: dir });
    expect(broken.code).toBe(1);
    expect(JSON.parse(broken.stdout)).toMatchObject({ error: { code: 'PLUGIN_START_FAILED', details: { exit_code: 3 } } });
    expect(await call()).toBe('second Ada call 3, lines 3\n');
    const installed = join(pluginFolders(world.dataDir), 'plugins', 'author.counter', '0.1.0', 'main.js');
    expect(readFileSync(installed, 'utf8')).toContain('second');
    expect(existsSync(join(pluginFolders(world.dataDir), 'plugin-data', 'author.counter', 'calls.log'))).toBe(true);
  }, 120_000);

  it('reports the violations install reports, and warns on agent_tool: as the install answer does', async () => {
    const bad = join(world.root, 'bad');
    const good = join(world.root, 'good');
    const base = readFileSync(join(dir, 'manifest.yaml'), 'utf8');
    await rebuild(counterSource('copied'));
    for (const folder of [bad, good]) await runTool('cp', ['-r', join(dir, 'package'), folder], world.root);
    writeFileSync(
      join(bad, 'manifest.yaml'),
      base.replace('version: 0.1.0', 'version: one').replace('[kanban-task, office-task]', '[kanban-task, configuration]'),
    );
    const { agent_tools: tools, ...rest } = (await import('yaml')).parse(base) as Record<string, unknown>;
    writeFileSync(join(good, 'manifest.yaml'), stringify({ ...rest, id: 'author.typo', agent_tool: tools }));

    const validated = await runToolport(['plugin', 'validate', bad, '--json']);
    expect(validated.code).toBe(1);
    const verdict = JSON.parse(validated.stdout) as { violations: unknown[]; warnings: unknown[] };
    const installed = await runToolport(['plugin', 'install', bad, '--json', '--data-dir', world.dataDir]);
    expect(installed.code).toBe(1);
    const refusal = JSON.parse(installed.stdout) as { error: { code: string; details: unknown[] } };
    expect(refusal.error.code).toBe('INVALID_PACKAGE');
    expect(verdict.violations).toEqual(refusal.error.details);
    expect(verdict.violations).toEqual(
      expect.arrayContaining([
        { path: 'version', message: expect.any(String) },
        { path: 'agent_tools[0].surfaces[1]', message: 'unsupported surface "configuration"' },
      ]),
    );

    const typo = await runToolport(['plugin', 'validate', good]);
    expect(typo.code).toBe(0);
    expect(typo.stderr).toBe('warning: agent_tool: unknown field (did you mean agent_tools?)\n');
    const typoJson = JSON.parse((await runToolport(['plugin', 'validate', good, '--json'])).stdout) as { warnings: unknown[] };
    const answer = JSON.parse((await toolportOk(['plugin', 'install', good, '--json'], world.dataDir)).stdout) as { warnings: unknown[]; tools: string[] };
    expect(typoJson.warnings).toEqual([{ path: 'agent_tool', message: 'unknown field (did you mean agent_tools?)' }]);
    expect(answer.warnings).toEqual(typoJson.warnings);
    expect(answer.tools).toEqual([]);
  }, 60_000);
});
