import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { PluginStartError } from '../../../src/domain/errors';
import { useRuntimeHarness } from './support/runtime-harness';

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

/** Starting a plugin that does not come up: a clear PluginStartError and no process left. */
describe('GrpcPluginRuntime.start when the plugin does not come up', () => {
  const h = useRuntimeHarness();

  async function startFailure(promise: Promise<unknown>): Promise<PluginStartError> {
    const outcome = await promise.then(
      () => new Error('the plugin started, a failure was expected'),
      (error: unknown) => error,
    );
    if (outcome instanceof PluginStartError) return outcome;
    throw outcome;
  }

  it('refuses a plugin that never prints its handshake, with its stderr, and leaves no process', async () => {
    h.useOptions({ startTimeoutMs: 400 });
    const started = Date.now();
    const error = await startFailure(h.start(h.rawSpec('silent-plugin.js', [], 'silent.plugin')));
    expect(Date.now() - started).toBeLessThan(2000);
    expect(error.code).toBe('PLUGIN_START_FAILED');
    expect(error.message).toContain('silent.plugin');
    expect(error.message).toContain('no handshake within 400 ms');
    expect(error.stderr).toEqual(['silent plugin: warming up forever']);
    expect(error.details).toEqual({ exit_code: null, stderr: ['silent plugin: warming up forever'] });
    // The harness's afterEach then finds no process or zombie of the fixture.
    expect(h.recorder.events).toEqual([]);
  });

  it('reports the exit code and last stderr lines of a plugin that exits before its handshake', async () => {
    const spec = h.sdkSpec('refusing.plugin');
    writeFileSync(join(spec.dataDir, 'refuse-start'), '');
    const error = await startFailure(h.start(spec));
    expect(error.exitCode).toBe(2);
    expect(error.message).toContain('exited (exit code 2) before its handshake');
    expect(error.stderr).toEqual(['refusing to start: refuse-start is present']);
  });

  it.each([
    ['serves no health service', 'no-health', 'UNIMPLEMENTED'],
    ['answers NOT_FOUND for the plugin service', 'not-found', 'NOT_FOUND'],
    ['answers SERVICE_UNKNOWN', 'service-unknown', 'SERVICE_UNKNOWN'],
  ])('fails the start at once, not after the start timeout, for a plugin that %s', async (_what, mode, answer) => {
    // Far beyond this test's own 20 s bound: only the definitive answer can end the start in time.
    h.useOptions({ startTimeoutMs: 30_000 });
    const error = await startFailure(h.start(h.rawSpec('unhealthy-plugin.js', [mode], 'definitive.health')));
    expect(error.code).toBe('PLUGIN_START_FAILED');
    expect(error.message).toContain(answer);
    expect(error.message).toContain('must serve grpc.health.v1.Health and answer SERVING for the service "plugin"');
    expect(error.message).not.toContain('in time');
    expect(h.recorder.events).toEqual([]);
  });

  it.each([
    ['another core protocol version', '2|1|tcp|127.0.0.1:1|grpc|', 'unsupported core protocol version "2"'],
    ['another app protocol version', '1|2|tcp|127.0.0.1:1|grpc|', 'unsupported plugin protocol version "2"'],
    ['another protocol', '1|1|tcp|127.0.0.1:1|netrpc|', 'unsupported protocol "netrpc"'],
    ['a 6th field that is not a certificate', `1|1|tcp|127.0.0.1:1|grpc|${'MIIBxTCCAW'.repeat(6)}`, 'not a DER X.509 certificate'],
    ['a line that is not a handshake', 'starting up...', 'not a handshake'],
  ])('refuses a handshake with %s', async (_what, line, reason) => {
    const error = await startFailure(h.start(h.rawSpec('fixed-handshake-plugin.js', [line], 'bad.handshake')));
    expect(error.message).toContain(reason);
    expect(error.stderr).toEqual(['fixed-handshake plugin: printing the given line']);
  });

  it('refuses a plugin whose handshake names an address nothing listens on', async () => {
    const error = await startFailure(h.start(h.rawSpec('fixed-handshake-plugin.js', ['1|1|tcp|127.0.0.1:1|grpc|'], 'deaf.plugin')));
    expect(error.message).toContain('nothing listens on the handshake address tcp 127.0.0.1:1');
  });

  it('refuses a handshake naming the address of a working plugin outside its process group', async () => {
    // A real SDK plugin started by this test, not by the runtime: it answers health and calls.
    const other: ChildProcess = spawn(process.execPath, [h.built.script], {
      env: { PATH: process.env.PATH, TOOLPORT_PLUGIN: 'toolport-plugin-v1', TOOLPORT_PLUGIN_DATA_DIR: h.sdkSpec().dataDir },
      stdio: ['ignore', 'pipe', 'ignore'],
    });
    h.seenPids.add(other.pid!);
    try {
      const [line] = (await once(createInterface({ input: other.stdout! }), 'line')) as [string];
      const address = line.split('|')[3];
      const error = await startFailure(h.start(h.rawSpec('fixed-handshake-plugin.js', [`1|1|tcp|${address}|grpc|`], 'impostor.plugin')));
      expect(error.message).toBe(
        `plugin impostor.plugin 1.0.0 failed to start: the handshake address tcp ${address} is listened on by a process outside the plugin's process group`,
      );
    } finally {
      other.kill('SIGKILL');
      await once(other, 'exit');
    }
  });

  it('refuses a handshake naming a unix socket another process listens on', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'toolport-impostor-'));
    const socket = join(dir, 'plugin.sock');
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(socket, resolve));
    try {
      const error = await startFailure(h.start(h.rawSpec('fixed-handshake-plugin.js', [`1|1|unix|${socket}|grpc|`], 'impostor.plugin')));
      expect(error.message).toContain(`the handshake address unix ${socket} is listened on by a process outside the plugin's process group`);
    } finally {
      await new Promise((resolve) => server.close(resolve));
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('refuses an executable that does not exist', async () => {
    const spec = { ...h.sdkSpec('missing.plugin'), executable: join(h.built.dir, 'no-such-binary') };
    const error = await startFailure(h.start(spec));
    expect(error.message).toMatch(/ENOENT/);
    expect(error.exitCode).toBeNull();
  });
});
