import { existsSync, mkdirSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { ProcessRun } from '../../support/processes/process-run';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { cleanEnv, runToolport } from '../../support/processes/run-toolport';
import { TOOLPORT_BIN } from '../../support/processes/toolport-paths';

/** Issue 30 item 1: the CLI finds the backend from any folder of the project, and a serve that fails leaves nothing. */
describe('finding the data dir from anywhere', () => {
  const sandbox = new ProcessSandbox('toolport-discovery-');
  let project: string;
  let state: string;
  let backendUrl: string;
  let port: number;

  beforeAll(async () => {
    project = join(sandbox.root, 'A');
    state = join(sandbox.root, 'state');
    mkdirSync(join(project, '.toolport'), { recursive: true });
    mkdirSync(join(project, 'sub', 'plugin'), { recursive: true });
    // serve with no --data-dir, run in the project's folder: it takes A/.toolport.
    const run = sandbox.track(
      new ProcessRun(process.execPath, [TOOLPORT_BIN, 'serve', '--port', '0'], {
        cwd: project,
        env: cleanEnv({ XDG_STATE_HOME: state, TOOLPORT_LOG_LEVEL: 'warn' }),
        stdout: 'ignore',
      }),
    );
    const info = join(project, '.toolport', 'backend.json');
    backendUrl = await eventually(
      () => {
        if (!run.running) throw new Error(`serve exited: ${run.stderr()}`);
        return existsSync(info) ? (JSON.parse(readFileSync(info, 'utf8')) as { url: string }).url : undefined;
      },
      20_000,
      'serve to write A/.toolport/backend.json',
    );
    port = Number(new URL(backendUrl).port);
  }, 30_000);

  afterAll(async () => {
    expect(await sandbox.teardown({ graceMs: 5000 })).toEqual([]);
  }, 30_000);

  it('a command run in A/sub/plugin finds the backend serving A/.toolport', async () => {
    const run = await runToolport(['plugin', 'list', '--json'], { cwd: join(project, 'sub', 'plugin'), env: { XDG_STATE_HOME: state } });
    expect(run).toMatchObject({ code: 0, stderr: '' });
    expect(JSON.parse(run.stdout)).toEqual([]);
    expect(existsSync(join(state, 'toolport'))).toBe(false);
  }, 30_000);

  it('TOOLPORT_DATA_DIR names it from outside the project', async () => {
    const outside = join(sandbox.root, 'outside');
    mkdirSync(outside, { recursive: true });
    const run = await runToolport(['status', '--json'], { cwd: outside, env: { XDG_STATE_HOME: state, TOOLPORT_DATA_DIR: join(project, '.toolport') } });
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ backend: { url: backendUrl } });
  }, 30_000);

  it('outside any project, the default data dir is named and the hint does not start a second backend on a busy port', async () => {
    const outside = join(sandbox.root, 'elsewhere');
    mkdirSync(outside, { recursive: true });
    const run = await runToolport(['plugin', 'list'], { cwd: outside, env: { XDG_STATE_HOME: state } });
    expect(run.code).toBe(3);
    expect(run.stderr).toContain(`no backend is running for ${join(state, 'toolport')} (the default`);
    expect(run.stderr).toContain('set TOOLPORT_DATA_DIR (or --data-dir) to its data dir');
    expect(run.stderr).not.toContain('./.toolport');
  }, 30_000);

  it('a serve that cannot listen (the port is taken) writes nothing: no new data dir, no file in an existing one', async () => {
    const fresh = join(sandbox.root, 'fresh');
    mkdirSync(fresh);
    // No .toolport here or above: the default data dir, which does not exist yet.
    const byDefault = await runToolport(['serve', '--port', String(port)], { cwd: fresh, env: { XDG_STATE_HOME: state } });
    expect(byDefault.code).not.toBe(0);
    expect(byDefault.stderr).toContain(String(port));
    expect(existsSync(state)).toBe(false);

    const existing = join(fresh, '.toolport');
    mkdirSync(existing, { mode: 0o700 });
    const inProject = await runToolport(['serve', '--port', String(port)], { cwd: fresh });
    expect(inProject.code).not.toBe(0);
    expect(readdirSync(existing)).toEqual([]);
  }, 30_000);
});
