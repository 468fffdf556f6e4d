import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { apiClient } from '../support/backend-process';
import { chaosDir, eventually, tearDown } from '../chaos/support/chaos-kit';
import { writePlaintextPlugin, writeStderrFloodPlugin } from './support/plugin-packages';
import { startReapedBackend, type ReapedBackend } from './support/reaped-backend';

jest.setTimeout(60_000);

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').split('\n').find((l) => l.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

/** The backend's side of CONTRACT §8 limits, through `toolport serve` and its HTTP API. */
describe('the backend and its plugins', () => {
  let dir: string;
  const backends: ReapedBackend[] = [];

  beforeAll(() => {
    dir = chaosDir('backend-limits');
  });
  afterAll(async () => {
    await Promise.all(backends.map((backend) => backend.destroy()));
    await tearDown(dir, [], []);
  }, 30_000);

  async function start(dataDir: string, args: string[] = []): Promise<ReapedBackend> {
    const backend = await startReapedBackend({ dataDir, args });
    backends.push(backend);
    return backend;
  }

  it('with --plugin-require-mtls, refuses to install a plaintext plugin with PLUGIN_START_FAILED and installs an SDK plugin', async () => {
    const backend = await start(join(dir, 'require-mtls'), ['--plugin-require-mtls']);
    const api = apiClient(backend.url, backend.token);
    const refused = await api<{ error: { code: string; message: string } }>('POST', '/api/v1/plugins', { path: writePlaintextPlugin(join(dir, 'pkg-plain'), 'plain.plugin') });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('PLUGIN_START_FAILED');
    expect(refused.body.error.message).toContain('it answered without a server certificate (plaintext), and the backend requires mutual TLS (--plugin-require-mtls)');
    const flood = await api('POST', '/api/v1/plugins', { path: writeStderrFloodPlugin(join(dir, 'pkg-tls'), 'tls.plugin') });
    expect(flood.status).toBe(201);
    backend.signal('SIGTERM');
    expect(await backend.reaperExited).toBe(0);
  });

  it('cuts a 64 MB stderr line without a newline at 64 KiB, keeps the next line, and its memory does not grow for it', async () => {
    const dataDir = join(dir, 'flood');
    const backend = await start(dataDir);
    const api = apiClient(backend.url, backend.token);
    expect((await api('POST', '/api/v1/plugins', { path: writeStderrFloodPlugin(join(dir, 'pkg-flood'), 'flood.plugin') })).status).toBe(201);
    const before = peakRssMb(backend.pid);
    writeFileSync(join(dataDir, 'plugin-data', 'flood.plugin', 'flood-now'), '');
    await eventually(() => (backend.stderr().includes('"msg":"after the flood"') ? true : undefined), 30_000, 'the line after the flood');
    const grown = peakRssMb(backend.pid) - before;
    // Before the 64 KiB cut the backend held the whole line: hundreds of megabytes.
    expect(grown).toBeLessThan(16);

    const records = backend
      .stderr()
      .split('\n')
      .filter((line) => line.includes('"plugin_id":"flood.plugin"') && line.includes('"stream":"stderr"'))
      .map((line) => JSON.parse(line) as { msg: string; truncated?: boolean; level: number });
    const cut = records.find((record) => record.truncated);
    expect(cut?.msg).toBe('x'.repeat(64 * 1024));
    expect(records.filter((record) => record.msg.startsWith('x'))).toHaveLength(1);
    expect(records.find((record) => record.msg === 'after the flood')?.level).toBe(30);
    backend.signal('SIGTERM');
    expect(await backend.reaperExited).toBe(0);
  });
});
