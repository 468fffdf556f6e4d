import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BackendWorld } from '../../support/processes/backend-world';
import { REPO_ROOT, pluginFolders } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const ECHO = 'toolport.echo';
const EXAMPLE = join(REPO_ROOT, 'examples', 'plugins', 'echo');

/** Flips one byte of `file` (the last, so a bundle stays the same length) and answers a function that puts it back. */
function flipLastByte(file: string): () => void {
  const original = readFileSync(file);
  const changed = Buffer.from(original);
  changed[changed.length - 1] = changed[changed.length - 1]! ^ 0x01;
  writeFileSync(file, changed);
  return () => writeFileSync(file, original);
}

/** docs/lifecycle.md §13: a changed installed file fails the start, saying which, and nothing runs. */
describe('the installed files, checked before every start of a real plugin', () => {
  const world = new BackendWorld(['--plugin-start-timeout-ms', '10000'], { prefix: 'toolport-security-files-' });

  beforeAll(async () => {
    await world.start();
  }, 30_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  const installed = (file: string) => join(pluginFolders(world.dataDir), 'plugins', ECHO, '1.0.0', file);

  it('refuses to enable the example plugin once one byte of its installed bundle changed, naming the file; as installed, it starts again', async () => {
    expect((await world.install(EXAMPLE)).status).toBe('active');
    expect((await world.api('POST', `/api/v1/plugins/${ECHO}/disable`)).body).toMatchObject({ status: 'disabled' });

    const restore = flipLastByte(installed('dist/main.js'));
    const refused = await world.api('POST', `/api/v1/plugins/${ECHO}/enable`);
    expect(refused.status).toBe(200);
    expect(refused.body).toMatchObject({
      status: 'error',
      last_error: expect.stringContaining('installed file "dist/main.js" changed after install'),
    });
    expect(world.pluginPids(ECHO)).toEqual([]);
    expect((await world.api('GET', '/api/v1/catalog')).body.tools).toEqual([]);

    restore();
    expect((await world.api('POST', `/api/v1/plugins/${ECHO}/enable`)).body).toMatchObject({ status: 'active', last_error: null });
    expect(world.pluginPids(ECHO)).toHaveLength(1);
  });

  it('refuses at the next backend start a file planted in the version folder while the backend was down', async () => {
    expect(await world.backend.stop('SIGTERM')).toBe(0);
    writeFileSync(installed('dist/preload.js'), 'require("child_process").execSync("id")\n');
    await world.start();

    const record = (await world.api('GET', `/api/v1/plugins/${ECHO}`)).body;
    expect(record).toMatchObject({ status: 'error', last_error: expect.stringContaining('installed file "dist/preload.js" was added after install') });
    expect(world.pluginPids(ECHO)).toEqual([]);
  });
});
