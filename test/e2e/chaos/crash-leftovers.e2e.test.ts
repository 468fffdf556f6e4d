import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { eventually } from '../../support/eventually';
import { BackendWorld } from '../../support/processes/backend-world';

/** The backend dies in the middle of a package upload; the next one cleans up after it. */
describe('chaos: the backend is SIGKILLed during a package upload', () => {
  const world = new BackendWorld([], { prefix: 'toolport-chaos-leftovers-' });

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  const tmpEntries = () => (existsSync(join(world.dataDir, 'tmp')) ? readdirSync(join(world.dataDir, 'tmp')) : []);

  it('leaves no half-written upload behind once a new backend runs', async () => {
    const first = await world.start();
    // An upload that announces 50 MiB and sends 4 MiB, then stalls.
    const upload = request(`${first.url}/api/v1/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/gzip', 'content-length': String(50 * 1024 * 1024) },
    });
    upload.on('error', () => undefined);
    upload.write(Buffer.alloc(4 * 1024 * 1024, 1));
    await eventually(() => (tmpEntries().some((name) => name.startsWith('upload-')) ? true : undefined), 5000, 'the upload to be spooled', {
      retryErrors: true,
    });
    await first.stop('SIGKILL');
    upload.destroy();
    expect(tmpEntries().length).toBeGreaterThan(0);

    await world.start();
    expect(tmpEntries()).toEqual([]);
    expect((await world.api('GET', '/api/v1/plugins')).body).toEqual([]);
  }, 30_000);
});
