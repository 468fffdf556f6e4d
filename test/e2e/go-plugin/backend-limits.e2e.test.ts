import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { adminApi } from '../../support/clients/admin-api';
import { eventually } from '../../support/eventually';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { writePlaintextPlugin, writeStderrFloodPlugin } from './support/plugin-packages';
import { startReapedBackend, type ReapedBackend } from './support/reaped-backend';
import { pluginFolders } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

/** Peak resident memory of a process so far (VmHWM), in MB. */
function peakRssMb(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmHWM:'))!;
  return Number(/(\d+)/.exec(line)![1]) / 1024;
}

/** The backend's side of docs/plugin-protocol.md §4 limits, through `toolport serve` and its HTTP API. */
describe('the backend and its plugins', () => {
  const sandbox = new ProcessSandbox('toolport-backend-limits-');
  afterAll(async () => {
    expect(await sandbox.teardown()).toEqual([]);
  }, 30_000);

  const start = (dataDir: string, args: string[] = []): Promise<ReapedBackend> => startReapedBackend(sandbox, dataDir, args);

  it('with --plugin-require-mtls, refuses to install a plaintext plugin with PLUGIN_START_FAILED and installs an SDK plugin', async () => {
    // Mutual TLS is required of TCP plugins; a sandboxed plugin's socket in its private TMPDIR
    // already meets it, so this check runs the plugins unsandboxed, on TCP.
    const backend = await start(join(sandbox.root, 'require-mtls'), ['--plugin-require-mtls', '--plugin-sandbox', 'off']);
    const api = adminApi(backend.url, backend.token);
    const refused = await api<{ error: { code: string; message: string } }>('POST', '/api/v1/plugins', {
      path: writePlaintextPlugin(join(sandbox.root, 'pkg-plain'), 'plain.plugin'),
    });
    expect(refused.status).toBe(422);
    expect(refused.body.error.code).toBe('PLUGIN_START_FAILED');
    expect(refused.body.error.message).toContain(
      'it answered without a server certificate (plaintext), and the backend requires mutual TLS (--plugin-require-mtls)',
    );
    const flood = await api('POST', '/api/v1/plugins', { path: writeStderrFloodPlugin(join(sandbox.root, 'pkg-tls'), 'tls.plugin') });
    expect(flood.status).toBe(201);
    expect(await backend.stop()).toBe(0);
  });

  it('cuts a 64 MB stderr line without a newline at 64 KiB, keeps the next line, and its memory does not grow for it', async () => {
    const dataDir = join(sandbox.root, 'flood');
    const backend = await start(dataDir);
    const api = adminApi(backend.url, backend.token);
    expect((await api('POST', '/api/v1/plugins', { path: writeStderrFloodPlugin(join(sandbox.root, 'pkg-flood'), 'flood.plugin') })).status).toBe(201);
    const before = peakRssMb(backend.pid);
    writeFileSync(join(pluginFolders(dataDir), 'plugin-data', 'flood.plugin', 'flood-now'), '');
    await eventually(() => backend.stderr().includes('"msg":"after the flood"'), 30_000, 'the line after the flood');
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
    expect(await backend.stop()).toBe(0);
  });
});
