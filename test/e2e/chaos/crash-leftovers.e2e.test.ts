import { existsSync, readdirSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { apiClient, startBackend, type RunningBackend } from '../support/backend-process';
import { chaosDir, eventually, tearDown } from './support/chaos-kit';

/** The backend dies in the middle of a package upload; the next one cleans up after it. */
describe('chaos: the backend is SIGKILLed during a package upload', () => {
  let dir: string;
  let dataDir: string;
  let first: RunningBackend | undefined;
  let second: RunningBackend | undefined;

  beforeAll(() => {
    dir = chaosDir('leftovers');
    dataDir = join(dir, 'data');
  });

  afterAll(async () => {
    await tearDown(dir, [first, second], []);
  }, 30_000);

  const tmpEntries = () => (existsSync(join(dataDir, 'tmp')) ? readdirSync(join(dataDir, 'tmp')) : []);

  it('leaves no half-written upload behind once a new backend runs', async () => {
    first = await startBackend({ dataDir });
    // An upload that announces 50 MiB and sends 4 MiB, then stalls.
    const upload = request(`${first.url}/api/v1/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${first.token}`, 'content-type': 'application/gzip', 'content-length': String(50 * 1024 * 1024) },
    });
    upload.on('error', () => undefined);
    upload.write(Buffer.alloc(4 * 1024 * 1024, 1));
    await eventually(() => (tmpEntries().some((name) => name.startsWith('upload-')) ? true : undefined), 5000, 'the upload to be spooled');
    await first.stop('SIGKILL');
    upload.destroy();
    expect(tmpEntries().length).toBeGreaterThan(0);

    second = await startBackend({ dataDir });
    expect(tmpEntries()).toEqual([]);
    expect((await apiClient(second.url, second.token)('GET', '/api/v1/plugins')).body).toEqual([]);
  }, 30_000);
});
