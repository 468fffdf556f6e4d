import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { createServer, type AddressInfo, type Server } from 'node:net';
import { createInterface } from 'node:readline';
import { credentials, Metadata } from '@grpc/grpc-js';
import { parseHandshake } from '../../../../src/adapters/grpc/handshake';
import { PINNED_CHANNEL_OPTIONS, pinnedChannelCredentials } from '../../../../src/adapters/grpc/tls/pinned-channel-credentials';
import { createSelfSignedCertificate } from '@toolport/plugin-sdk/protocol';
import { GRPCControllerClient } from '../../../../src/adapters/grpc/generated/plugin/grpc_controller';
import { HealthCheckResponse_ServingStatus, HealthClient } from '../../../../src/adapters/grpc/generated/grpc/health/v1/health';
import { leftoverProcesses, processExists } from '../support/proc-scan';
import { newDataDir, removeDataDirs } from '../support/plugin-specs';
import { outcomeOf } from '../../../../packages/plugin-sdk/test/support/child-outcome';
import { buildSdkFixture, FIXTURE_DIR } from '../support/sdk-fixture';
import type { BuiltFixture } from '../support/sdk-fixture';

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

/** The SDK's side of docs/plugin-protocol.md §4, seen from outside the plugin process (no runtime involved). */
describe('serve (plugin SDK)', () => {
  let built: BuiltFixture;
  const children: ChildProcess[] = [];
  const seenPids = new Set<number>();
  /** Processes our children started (killed first in teardown if a test left them). */
  const descendants: number[] = [];
  /** pyenv-style shims can add a second under load; the system interpreter starts in ~0.1 s. */
  const python = existsSync('/usr/bin/python3') ? '/usr/bin/python3' : 'python3';

  beforeAll(() => {
    built = buildSdkFixture();
  });
  afterAll(() => built.remove());
  afterEach(async () => {
    // Descendants first (their reaper, if any, then reaps them and exits), then our children.
    for (const pid of descendants.splice(0)) {
      if (processExists(pid)) process.kill(pid, 'SIGKILL');
    }
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGKILL');
        await once(child, 'exit');
      }
    }
    removeDataDirs();
    expect(leftoverProcesses([built.dir, FIXTURE_DIR], seenPids)).toEqual([]);
  });

  function run(command: string, args: string[], env: NodeJS.ProcessEnv): ChildProcess {
    const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    children.push(child);
    seenPids.add(child.pid!);
    return child;
  }

  async function firstLine(child: ChildProcess): Promise<string> {
    const lines = createInterface({ input: child.stdout! });
    const [line] = (await once(lines, 'line')) as [string];
    lines.close();
    return line;
  }

  const hostEnv = (extra: NodeJS.ProcessEnv = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    TOOLPORT_PLUGIN_DATA_DIR: newDataDir(),
    ...extra,
  });

  it('started without the magic cookie, says it is a Toolport plugin on stderr and exits 1', async () => {
    const result = await outcomeOf(run(process.execPath, [built.script], hostEnv()));
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain('This is a Toolport plugin');
  });

  it('exits 1 when the host offers no protocol version it speaks', async () => {
    const env = hostEnv({ TOOLPORT_PLUGIN: 'toolport-plugin-v1', PLUGIN_PROTOCOL_VERSIONS: '2,3' });
    const result = await outcomeOf(run(process.execPath, [built.script], env));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain('the host offers 2, 3');
  });

  it('prints the handshake, serves health for "plugin" and "", and exits 0 on Shutdown', async () => {
    const child = run(process.execPath, [built.script], hostEnv({ TOOLPORT_PLUGIN: 'toolport-plugin-v1' }));
    const line = await firstLine(child);
    const match = /^1\|1\|tcp\|127\.0\.0\.1:(\d+)\|grpc\|$/.exec(line);
    expect(match).not.toBeNull();
    const target = `127.0.0.1:${match![1]}`;
    const health = new HealthClient(target, credentials.createInsecure());
    const check = (service: string): Promise<number | string> =>
      new Promise((resolve) =>
        health.check({ service }, new Metadata(), { deadline: Date.now() + 1000 }, (error, response) =>
          resolve(error ? `error ${error.code}` : response!.status),
        ),
      );
    expect(await check('plugin')).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(await check('')).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(await check('something.else')).toBe('error 5');
    health.close();

    const exited = once(child, 'exit');
    const controller = new GRPCControllerClient(target, credentials.createInsecure());
    await new Promise<void>((resolve, reject) =>
      controller.shutdown({}, new Metadata(), { deadline: Date.now() + 1000 }, (error) => (error ? reject(error) : resolve())),
    );
    controller.close();
    expect(await exited).toEqual([0, null]);
  });

  function listenOn(port: number): Promise<Server> {
    return new Promise((resolve, reject) => {
      const server = createServer();
      server.once('error', reject);
      server.listen(port, '127.0.0.1', () => resolve(server));
    });
  }

  it('binds 127.0.0.1 inside PLUGIN_MIN_PORT..PLUGIN_MAX_PORT', async () => {
    const probe = await listenOn(0);
    const free = (probe.address() as AddressInfo).port;
    await new Promise((resolve) => probe.close(resolve));
    const child = run(
      process.execPath,
      [built.script],
      hostEnv({ TOOLPORT_PLUGIN: 'toolport-plugin-v1', PLUGIN_MIN_PORT: String(free), PLUGIN_MAX_PORT: String(free) }),
    );
    expect(await firstLine(child)).toBe(`1|1|tcp|127.0.0.1:${free}|grpc|`);
  });

  it('never shares a port another process holds: with no free port in the range it exits 1 saying so', async () => {
    const holder = await listenOn(0);
    try {
      const taken = String((holder.address() as AddressInfo).port);
      const result = await outcomeOf(
        run(process.execPath, [built.script], hostEnv({ TOOLPORT_PLUGIN: 'toolport-plugin-v1', PLUGIN_MIN_PORT: taken, PLUGIN_MAX_PORT: taken })),
      );
      expect(result.code).toBe(1);
      expect(result.stdout).toBe('');
      expect(result.stderr).not.toMatch(/\n\s+at /);
      expect(result.stderr).toContain(`no free port on 127.0.0.1 between PLUGIN_MIN_PORT ${taken} and PLUGIN_MAX_PORT ${taken}`);
    } finally {
      await new Promise((resolve) => holder.close(resolve));
    }
  });

  it.each([
    [{ PLUGIN_MIN_PORT: '20000', PLUGIN_MAX_PORT: '10000' }, 'PLUGIN_MIN_PORT (20000) is greater than PLUGIN_MAX_PORT (10000)'],
    [{ PLUGIN_MIN_PORT: 'ten', PLUGIN_MAX_PORT: '10000' }, 'PLUGIN_MIN_PORT must be a port number 1-65535, got "ten"'],
    [{ PLUGIN_CLIENT_CERT: 'not a certificate' }, 'PLUGIN_CLIENT_CERT is set but does not hold a PEM certificate'],
  ])('exits 1 with a clear message for %j', async (variables, message) => {
    const result = await outcomeOf(run(process.execPath, [built.script], hostEnv({ TOOLPORT_PLUGIN: 'toolport-plugin-v1', ...variables })));
    expect(result.code).toBe(1);
    expect(result.stderr).toContain(message);
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });

  it('serves mutual TLS when PLUGIN_CLIENT_CERT is set: only a client holding that certificate gets an answer', async () => {
    const hostCertificate = createSelfSignedCertificate();
    const child = run(process.execPath, [built.script], hostEnv({ TOOLPORT_PLUGIN: 'toolport-plugin-v1', PLUGIN_CLIENT_CERT: hostCertificate.certPem }));
    const parsed = parseHandshake(await firstLine(child));
    if (!parsed.ok) throw new Error(parsed.reason);
    const { target, serverCertificate } = parsed.endpoint;
    expect(serverCertificate).toBeDefined();
    const check = async (channelCredentials: ReturnType<typeof credentials.createInsecure>): Promise<number | string> => {
      const health = new HealthClient(target, channelCredentials, PINNED_CHANNEL_OPTIONS);
      try {
        return await new Promise((resolve) =>
          health.check({ service: 'plugin' }, new Metadata(), { deadline: Date.now() + 2000 }, (error, response) =>
            resolve(error ? `error ${error.code}` : response!.status),
          ),
        );
      } finally {
        health.close();
      }
    };
    expect(await check(pinnedChannelCredentials(hostCertificate, serverCertificate!))).toBe(HealthCheckResponse_ServingStatus.SERVING);
    expect(await check(pinnedChannelCredentials(createSelfSignedCertificate(), serverCertificate!))).toBe('error 14');
    expect(await check(credentials.createInsecure())).toBe('error 14');
    expect(await check(credentials.createSsl(null, null, null, { rejectUnauthorized: false }))).toBe('error 14');
  });

  it('exits by itself when its host process is gone', async () => {
    // The subreaper stands in for a real init: it adopts the orphaned plugin and reaps it.
    const reaper = run(python, [join(FIXTURE_DIR, 'subreaper.py'), process.execPath, join(FIXTURE_DIR, 'fake-host.js'), built.script, newDataDir()], {
      PATH: process.env.PATH,
    });
    const [hostPid, pluginPid] = (await firstLine(reaper)).split(' ').map(Number);
    for (const pid of [pluginPid, hostPid]) {
      seenPids.add(pid);
      descendants.push(pid);
    }
    const reaperDone = once(reaper, 'exit');
    const killedAt = Date.now();
    process.kill(hostPid, 'SIGKILL');
    // The reaper exits once its last descendant, the plugin, exited and was reaped.
    expect(await reaperDone).toEqual([0, null]);
    expect(Date.now() - killedAt).toBeLessThan(2000);
    expect(processExists(pluginPid)).toBe(false);
  });
});
