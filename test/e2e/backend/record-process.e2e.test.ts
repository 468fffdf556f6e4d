import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { REPO_ROOT } from '../../support/processes/toolport-paths';
import { isProcessAlive } from '../../../src/adapters/shared/process-liveness';

jest.setTimeout(60_000);

const ECHO_DIR = join(REPO_ROOT, 'examples', 'plugins', 'echo');

/** docs/http-api.md §4: every record answer carries `pid` and `tls`, the process serving the plugin on this backend. */
describe('backend: the process in every plugin record', () => {
  const world = new BackendWorld();
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    await world.start();
    env = { TOOLPORT_URL: world.backend.url, TOOLPORT_ADMIN_TOKEN: world.backend.token };
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('the install answer, GET, the list, plugin list --json and plugin info name the live process and its mutual TLS link', async () => {
    const installed = await world.install(ECHO_DIR);
    expect(installed).toMatchObject({ id: 'toolport.echo', status: 'active', tls: true });
    const pid = installed.pid as number;
    expect(Number.isInteger(pid)).toBe(true);
    expect(isProcessAlive(pid)).toBe(true);
    expect(world.pluginPids('toolport.echo')).toEqual([pid]);

    expect((await world.api('GET', '/api/v1/plugins/toolport.echo')).body).toMatchObject({ pid, tls: true });
    expect((await world.api('GET', '/api/v1/plugins')).body).toMatchObject([{ id: 'toolport.echo', pid, tls: true }]);

    const listed = await runToolport(['plugin', 'list', '--json'], { env });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout)).toMatchObject([{ id: 'toolport.echo', pid, tls: true }]);
    const info = await runToolport(['plugin', 'info', 'toolport.echo', '--json'], { env });
    expect(info.code).toBe(0);
    expect(JSON.parse(info.stdout)).toMatchObject({ pid, tls: true, process: { pid } });
  });

  it('disable answers nulls once the process is gone; enable answers the new live process', async () => {
    const before = (await world.api('GET', '/api/v1/plugins/toolport.echo')).body.pid as number;
    const disabled = await world.api('POST', '/api/v1/plugins/toolport.echo/disable');
    expect(disabled.status).toBe(200);
    expect(disabled.body).toMatchObject({ status: 'disabled', pid: null, tls: null });
    await eventually(() => !isProcessAlive(before), 5000, 'the disabled process to exit');
    expect((await world.api('GET', '/api/v1/plugins')).body).toMatchObject([{ pid: null, tls: null }]);

    const enabled = await world.api('POST', '/api/v1/plugins/toolport.echo/enable');
    expect(enabled.body).toMatchObject({ status: 'active', tls: true });
    expect(enabled.body.pid).not.toBe(before);
    expect(isProcessAlive(enabled.body.pid)).toBe(true);
    expect(world.pluginPids('toolport.echo')).toEqual([enabled.body.pid]);
  });
});
