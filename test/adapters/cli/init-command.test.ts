import { mkdirSync, mkdtempSync, readdirSync, readFileSync, realpathSync, rmSync, statSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { initCommand } from '../../../src/adapters/cli/commands/init-command';
import { COMMAND_IDS, runCli, type CommandHandlers } from '../../../src/adapters/cli/program';
import { toolportBin } from '../../../src/adapters/cli/toolport-bin';

const ROOT = join(__dirname, '..', '..', '..');

function filesUnder(dir: string, base = dir): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, base) : [path.slice(base.length + 1)];
  });
}

/** `toolport plugin init` through the CLI frame, writing real files from templates/. */
describe('plugin init', () => {
  let root: string;
  const out: string[] = [];
  const err: string[] = [];
  const io = { env: {}, stdout: (t: string) => out.push(t), stderr: (t: string) => err.push(t) };
  const handlers = Object.fromEntries(COMMAND_IDS.map((id) => [id, async () => 99])) as unknown as CommandHandlers;
  handlers['plugin.init'] = initCommand(io);
  const init = (...args: string[]) => runCli(['plugin', 'init', ...args], handlers, io);

  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'toolport-init-'));
    out.length = 0;
    err.length = 0;
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('writes a TypeScript project whose every placeholder is filled, the SDK and esbuild from this Toolport', async () => {
    const dir = join(root, 'acme.hello');
    expect(await init(dir)).toBe(0);
    expect(filesUnder(dir).sort()).toEqual(['.gitignore', 'README.md', 'build.js', 'manifest.yaml', 'package.json', 'src/index.ts', 'tsconfig.json']);
    for (const file of filesUnder(dir)) expect(readFileSync(join(dir, file), 'utf8')).not.toContain('{{');
    const manifest = readFileSync(join(dir, 'manifest.yaml'), 'utf8');
    expect(manifest).toContain('id: acme.hello\n');
    const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8')) as {
      dependencies: Record<string, string>;
      devDependencies: Record<string, string>;
    };
    // Relative file: paths (no absolute path of this machine), each leading to this clone's copy.
    const resolved = (spec: string) => realpathSync(join(dir, spec.replace(/^file:/, '')));
    for (const spec of [pkg.dependencies['@toolport/plugin-sdk'], pkg.devDependencies.esbuild, pkg.devDependencies.typescript]) {
      expect(spec).toMatch(/^file:\.\.?\//);
    }
    expect(resolved(pkg.dependencies['@toolport/plugin-sdk'])).toBe(realpathSync(join(ROOT, 'packages', 'plugin-sdk')));
    expect(resolved(pkg.devDependencies.esbuild)).toBe(realpathSync(join(ROOT, 'node_modules', 'esbuild')));
    expect(resolved(pkg.devDependencies.typescript)).toBe(realpathSync(join(ROOT, 'node_modules', 'typescript')));
    expect((pkg as unknown as { scripts: Record<string, string> }).scripts.typecheck).toBe('tsc --noEmit');
    expect(out.join('')).toContain('toolport tool call kandev_acme_hello_hello --args \'{"name": "Ada"}\'');
    // A data dir made in the project (.toolport/) is never committed.
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n')).toContain('.toolport/');
  });

  it('writes a Python project whose package/ holds the protocol module and the stubs of every proto it imports', async () => {
    const dir = join(root, 'py');
    expect(await init(dir, '--lang', 'python', '--id', 'acme.py')).toBe(0);
    const files = filesUnder(dir);
    expect(files).toEqual(
      expect.arrayContaining([
        '.gitignore',
        'README.md',
        'package/main.py',
        'package/manifest.yaml',
        'package/toolport_plugin.py',
        'package/stubs/toolport/plugin/v1/plugin_pb2.py',
        'package/stubs/grpc_health/v1/health_pb2_grpc.py',
        'package/stubs/plugin/grpc_controller_pb2.py',
      ]),
    );
    expect(files.filter((file) => !file.startsWith('package/')).sort()).toEqual(['.gitignore', 'README.md']);
    expect(statSync(join(dir, 'package', 'main.py')).mode & 0o100).toBe(0o100);
    expect(readFileSync(join(dir, 'package', 'main.py'), 'utf8').startsWith('#!/usr/bin/env python3\n')).toBe(true);
    expect(out.join('')).not.toContain('build');
    expect(readFileSync(join(dir, '.gitignore'), 'utf8').split('\n')).toContain('.toolport/');
  });

  it('prints, and writes in its README, toolport as it runs from a shell: bare when on PATH, else its absolute path with how to link it', async () => {
    const bin = toolportBin();
    const notOnPath = join(root, 'plain');
    expect(await init(notOnPath)).toBe(0);
    const readme = readFileSync(join(notOnPath, 'README.md'), 'utf8');
    expect(readme).toContain(`\n${bin} plugin install package --force`);
    expect(readme).toContain(`\`${bin} plugin logs plain\``);
    expect(readme).toContain('`npm link` in');
    expect(readme).not.toMatch(/^toolport /m);
    expect(out.join('')).toContain(`  ${bin} plugin install package --force\n`);
    expect(out.join('')).toContain('npm link');

    out.length = 0;
    mkdirSync(join(root, 'path-bin'));
    symlinkSync(bin, join(root, 'path-bin', 'toolport'));
    const linkedIo = { ...io, env: { PATH: join(root, 'path-bin') } };
    const linked = { ...handlers, 'plugin.init': initCommand(linkedIo) };
    expect(await runCli(['plugin', 'init', join(root, 'linked')], linked, linkedIo)).toBe(0);
    const linkedReadme = readFileSync(join(root, 'linked', 'README.md'), 'utf8');
    expect(linkedReadme).toContain('\ntoolport plugin install package --force');
    expect(linkedReadme).not.toContain(bin);
    expect(linkedReadme).not.toContain('npm link');
    expect(out.join('')).toContain('  toolport plugin install package --force\n');
  });

  it('refuses a folder that is not empty, an id that is not one, and an unknown language, with exit 2', async () => {
    writeFileSync(join(root, 'kept.txt'), 'mine');
    expect(await init(root, '--id', 'acme.x')).toBe(2);
    expect(err.join('')).toContain('is not empty: plugin init writes a new project into a new or empty folder');
    expect(readdirSync(root)).toEqual(['kept.txt']);
    mkdirSync(join(root, 'Bad Name!'));
    expect(await init(join(root, 'Bad Name!'))).toBe(2);
    expect(err.join('')).toContain('is not a plugin id; pass one with --id');
    expect(await init(join(root, 'fresh'), '--lang', 'go')).toBe(2);
    expect(err.join('')).toContain('--lang must be ts or python, not "go"');
  });
});
