import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { REPO_ROOT, pluginFolders } from '../../support/processes/toolport-paths';
import { report, runTool, since, toolportOk } from './author-tools';

const SYSTEM_PYTHON_FIRST = `/usr/bin:${process.env.PATH}`;

/**
 * The plugin author's loop of issue 18, as an author runs it on a fresh data dir: `plugin init`,
 * build (TypeScript; a Python project installs as written), `plugin validate`, `plugin install
 * --force`, `tool call` of the scaffolded `hello`,
 * through real processes (npm, python3, the CLI, the backend, an agentctl and the plugin).
 */
describe('the plugin author loop', () => {
  const world = new BackendWorld(['--health-interval-ms', '60000'], { prefix: 'toolport-author-' });

  beforeAll(async () => {
    // Debian's python3 (the one with python3-grpcio) first on the PATH the backend passes on.
    await world.start({ env: { PATH: SYSTEM_PYTHON_FIRST } });
  }, 60_000);

  afterAll(async () => {
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 30_000);

  it('TypeScript: init, npm install with no registry, build, validate, install and call hello', async () => {
    const started = performance.now();
    const init = await toolportOk(['plugin', 'init', 'hello-ts', '--id', 'author.ts'], world.dataDir, world.root);
    expect(init.stdout).toContain('toolport tool call kandev_author_ts_hello');
    const dir = join(world.root, 'hello-ts');

    // --offline: the SDK and esbuild both come from this Toolport, nothing from a registry.
    const npmStart = performance.now();
    const install = await runTool('npm', ['install', '--offline', '--no-audit', '--no-fund'], dir);
    expect(install).toMatchObject({ code: 0 });
    const npmMs = since(npmStart);
    // Issue 30 item 5: the project type-checks, with the typescript it pins, and names no absolute path.
    expect(readFileSync(join(dir, 'package.json'), 'utf8')).not.toMatch(/"file:\//);
    const tsc = join(REPO_ROOT, 'node_modules', '.bin', 'tsc');
    expect(await runTool(tsc, ['--noEmit', '-p', dir], dir)).toMatchObject({ code: 0 });
    expect(await runTool('npm', ['run', 'typecheck'], dir)).toMatchObject({ code: 0 });
    const source = readFileSync(join(dir, 'src', 'index.ts'), 'utf8');
    writeFileSync(join(dir, 'src', 'index.ts'), `${source}\nconst wrong: number = 'not a number';\nvoid wrong;\n`);
    expect((await runTool('npm', ['run', 'typecheck'], dir)).code).not.toBe(0);
    writeFileSync(join(dir, 'src', 'index.ts'), source);
    expect(await runTool('npm', ['run', 'build'], dir)).toMatchObject({ code: 0 });

    const pkg = join(dir, 'package');
    expect(readdirSync(pkg).sort()).toEqual(['main.js', 'manifest.yaml']);
    expect(readFileSync(join(pkg, 'main.js'), 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true);
    expect(statSync(join(pkg, 'main.js')).mode & 0o111).toBe(0o111);

    const validate = await toolportOk(['plugin', 'validate', 'package'], world.dataDir, dir);
    expect(validate.stdout).toContain('author.ts 0.1.0, 1 tool');
    await toolportOk(['plugin', 'install', 'package', '--force'], world.dataDir, dir);
    const call = await toolportOk(['tool', 'call', 'kandev_author_ts_hello', '--args', '{"name": "Ada"}'], world.dataDir, dir);
    expect(call.stdout).toMatch(/^Hello, Ada!/);
    report(`TypeScript: init → first successful tool call ${since(started)} ms (npm install ${npmMs} ms)`);
  }, 180_000);

  it('Python: init, then validate, install and call hello with no build step, no network and /usr/bin/python3 first on PATH', async () => {
    const started = performance.now();
    const init = await toolportOk(['plugin', 'init', 'hello-py', '--lang', 'python'], world.dataDir, world.root);
    expect(init.stdout).not.toContain('build');
    const dir = join(world.root, 'hello-py');
    expect(readdirSync(join(dir, 'package')).sort()).toEqual(['main.py', 'manifest.yaml', 'stubs', 'toolport_plugin.py']);

    await toolportOk(['plugin', 'validate', 'package'], world.dataDir, dir);
    await toolportOk(['plugin', 'install', 'package', '--force'], world.dataDir, dir);
    const call = await toolportOk(['tool', 'call', 'kandev_hello_py_hello', '--args', '{"name": "Grace"}'], world.dataDir, dir);
    expect(call.stdout).toMatch(/^Hello, Grace!/);
    report(`Python: init → first successful tool call ${since(started)} ms`);

    const json = await runToolport(['tool', 'call', 'kandev_hello_py_hello', '--args', '{}', '--json', '--data-dir', world.dataDir]);
    expect(json.code).toBe(1);
    expect(JSON.parse(json.stdout)).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringMatching(/^\[INVALID_ARGUMENTS\]/) }] });
    // Installed as written: the installed copy gained no file (no __pycache__) by running.
    expect(readdirSync(join(pluginFolders(world.dataDir), 'plugins', 'hello-py', '0.1.0')).sort()).toEqual([
      'main.py',
      'manifest.yaml',
      'stubs',
      'toolport_plugin.py',
    ]);
  }, 120_000);

  it('Python: a start under a python3 without grpcio exits 1 saying which python3 ran and what to install', async () => {
    await toolportOk(['plugin', 'init', 'bare-py', '--lang', 'python'], world.dataDir, world.root);
    // A python3 that sees no site packages stands for one without python3-grpcio (pyenv, a venv).
    const shims = join(world.root, 'bare-python');
    mkdirSync(shims);
    writeFileSync(join(shims, 'python3'), '#!/bin/sh\nexec /usr/bin/python3 -S "$@"\n', { mode: 0o755 });
    const run = await runTool(join(world.root, 'bare-py', 'package', 'main.py'), [], world.root, 30_000, {
      PATH: `${shims}:${process.env.PATH}`,
      TOOLPORT_PLUGIN: 'toolport-plugin-v1',
    });
    expect(run.code).toBe(1);
    expect(run.stdout).toBe('');
    expect(run.stderr).toMatch(/cannot import grpc: this plugin needs grpcio and protobuf \(Debian: apt-get install python3-grpcio python3-protobuf\)/);
  });

  it('plugin info and status show the installed plugins, their process and their tools', async () => {
    const info = JSON.parse((await toolportOk(['plugin', 'info', 'hello-py', '--json'], world.dataDir)).stdout);
    expect(info).toMatchObject({
      id: 'hello-py',
      status: 'active',
      agent_tools: [{ name: 'hello', exposed_name: 'kandev_hello_py_hello', input_schema: { required: ['name'] } }],
      process: { pid: expect.any(Number), started_at: expect.any(String) },
    });
    // Issue 30 item 10: plugin info says how the host reaches the process, as the handshake named it.
    const sdkInfo = JSON.parse((await toolportOk(['plugin', 'info', 'author.ts', '--json'], world.dataDir)).stdout) as { network: string; tls: boolean };
    expect(['unix', 'tcp']).toContain(sdkInfo.network);
    const sdkHuman = await toolportOk(['plugin', 'info', 'author.ts'], world.dataDir);
    const channel = sdkInfo.network === 'unix' ? /a private unix socket/ : sdkInfo.tls ? /mutual TLS$/m : /plaintext TCP on 127\.0\.0\.1/;
    expect(sdkHuman.stdout).toMatch(channel);
    // Issue 30 item 10: status says which store it is.
    expect((await toolportOk(['status'], world.dataDir)).stdout).toContain(`\nStore: SQLite ${join(world.dataDir, 'toolport.db')}\n`);
    const human = await toolportOk(['plugin', 'info', 'hello-py'], world.dataDir);
    expect(human.stdout).toContain(`Process: pid ${info.process.pid}`);
    expect(human.stdout).toContain('input: {"type":"object"');

    const status = JSON.parse((await toolportOk(['status', '--json'], world.dataDir)).stdout);
    expect(status).toEqual({
      backend: {
        url: world.backend.url,
        version: expect.any(String),
        pid: world.backend.pid,
        store: { kind: 'sqlite', path: join(world.dataDir, 'toolport.db') },
      },
      plugins: { active: expect.arrayContaining(['author.ts', 'hello-py']) },
      sessions: { live: 0 },
    });
  }, 60_000);

  it('refuses to init into a folder that is not empty, with exit 2 and one line', async () => {
    writeFileSync(join(world.root, 'taken.txt'), 'x');
    const run = await runToolport(['plugin', 'init', '.', '--id', 'x.y'], { cwd: world.root });
    expect(run.code).toBe(2);
    expect(run.stderr).toBe('toolport: . is not empty: plugin init writes a new project into a new or empty folder\n');
  });
});
