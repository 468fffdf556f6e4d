import { X509Certificate } from 'node:crypto';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { nodeScriptSpec, newDataDir } from './support/plugin-specs';
import { processExists } from './support/proc-scan';
import { invocationError, toolCall, useRuntimeHarness } from './support/runtime-harness';
import { buildSdkFixture } from './support/sdk-fixture';
import { waitUntil } from '../../support/test-backend';

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

/** The runtime with real plugin processes: environment, logs, plugins without the SDK, stopping. */
describe('GrpcPluginRuntime', () => {
  const h = useRuntimeHarness();

  it('gives a plugin only the allow-listed environment, the protocol variables and its data dir, in its install dir', async () => {
    h.useOptions({
      env: {
        PATH: process.env.PATH,
        HOME: '/home/someone',
        LANG: 'C.UTF-8',
        LC_ALL: 'C',
        TZ: 'UTC',
        TOOLPORT_ADMIN_TOKEN: 'secret-admin-token',
        TOOLPORT_TOOL_PREFIX: 'kandev',
        AWS_SECRET_ACCESS_KEY: 'nope',
      },
    });
    const spec = h.sdkSpec();
    const instance = await h.start(spec);
    const result = await h.runtime.invoke(instance, toolCall('env'));
    const { keys, cwd } = JSON.parse(result.structuredContentJson);
    expect(keys).toEqual([
      'HOME',
      'LANG',
      'LC_ALL',
      'PATH',
      'PLUGIN_CLIENT_CERT',
      'PLUGIN_MAX_PORT',
      'PLUGIN_MIN_PORT',
      'PLUGIN_PROTOCOL_VERSIONS',
      'PWD',
      'TMPDIR',
      'TOOLPORT_PLUGIN',
      'TOOLPORT_PLUGIN_DATA_DIR',
      'TZ',
    ]);
    expect(cwd).toBe(spec.installDir);
  });

  it('gives each start its own TMPDIR (0700, under the tmp root) and client certificate, and removes the TMPDIR after the exit', async () => {
    const tmpRoot = join(mkdtempSync(join(tmpdir(), 'toolport-tmp-root-')), 'plugin-tmp');
    try {
      h.useOptions({ tmpRoot, env: { PATH: process.env.PATH, TMPDIR: '/shared/tmp' } });
      const first = await h.start(h.sdkSpec('a.plugin'));
      const second = await h.start(h.sdkSpec('b.plugin'));
      const seen = await Promise.all(
        [first, second].map(async (instance) => JSON.parse((await h.runtime.invoke(instance, toolCall('env'))).structuredContentJson)),
      );
      expect(seen[0].tmpDir).not.toBe(seen[1].tmpDir);
      for (const { tmpDir, clientCertificate } of seen) {
        expect(dirname(tmpDir)).toBe(tmpRoot);
        expect(statSync(tmpDir).mode & 0o777).toBe(0o700);
        expect(Buffer.byteLength(tmpDir)).toBeLessThan(80);
        const certificate = new X509Certificate(clientCertificate);
        expect(certificate.checkHost('localhost')).toBe('localhost');
        expect(certificate.keyUsage).toContain('1.3.6.1.5.5.7.3.2');
      }
      expect(seen[0].clientCertificate).not.toBe(seen[1].clientCertificate);
      expect(statSync(tmpRoot).mode & 0o777).toBe(0o700);
      await h.runtime.stopAll();
      expect(seen.map(({ tmpDir }) => existsSync(tmpDir))).toEqual([false, false]);
    } finally {
      rmSync(dirname(tmpRoot), { recursive: true, force: true });
    }
  });

  it('turns the plugin stderr into structured log records tagged with the plugin id', async () => {
    await h.start(h.sdkSpec('logging.plugin'));
    const serving = h.logger.records.find((r) => r.message === 'plugin serving');
    expect(serving).toMatchObject({ level: 'info', fields: { plugin_id: 'logging.plugin', stream: 'stderr' } });
    expect((serving?.fields.plugin_fields as { tools: string[] }).tools).toContain('echo');
  });

  it("reads a plugin's go-plugin GRPCStdio stream like its stderr: levels kept, lines joined across chunks and cut at 64 KiB", async () => {
    const stdio = buildSdkFixture('stdio-plugin');
    try {
      const instance = await h.start(nodeScriptSpec('stdio.plugin', stdio.script, newDataDir()));
      await waitUntil(() => h.logger.records.some((r) => r.message === 'stdio done'), 5000, 'the stdio stream to arrive');
      const fromStdio = h.logger.records.filter((r) => r.fields.plugin_id === 'stdio.plugin' && r.fields.stream !== undefined);
      expect(
        fromStdio.map((r) => [r.level, r.fields.stream, r.message.length > 100 ? `${r.message.length} chars` : r.message, r.fields.truncated ?? false]),
      ).toEqual([
        ['warn', 'stderr', 'from the stdio stream', false],
        ['info', 'stderr', '65536 chars', true],
        ['debug', 'stdout', 'printed through stdio', false],
        ['info', 'stderr', 'stdio done', false],
      ]);
      const pid = instance.pid()!;
      await h.runtime.stop(instance);
      expect(processExists(pid)).toBe(false);
    } finally {
      stdio.remove();
    }
  });

  it('runs a plugin written without the SDK, with plain grpc-js and grpc-health-check', async () => {
    const instance = await h.start(h.rawSpec('raw-plugin.js'));
    const call = toolCall('echo', { plain: true });
    const result = await h.runtime.invoke(instance, call);
    expect(result.text).toBe(`raw echo ${call.invocationId}`);
    expect(JSON.parse(result.structuredContentJson)).toEqual({ arguments: { plain: true }, context: call.context });
    expect(await h.runtime.invoke(instance, toolCall('fail'))).toEqual({ text: 'raw failure', structuredContentJson: '', isError: true });
    expect((await invocationError(h.runtime.invoke(instance, toolCall('other')))).code).toBe('PLUGIN_ERROR');
    await h.runtime.stop(instance);
    expect(h.logger.records.find((r) => r.message === 'plugin stopped')?.fields.exit).toBe('exit code 0');
  });

  it('stops an SDK plugin gracefully through Shutdown, well inside the 1 s Shutdown window', async () => {
    const instance = await h.start(h.sdkSpec());
    const started = Date.now();
    await h.runtime.stop(instance);
    expect(Date.now() - started).toBeLessThan(900);
    expect(h.logger.records.find((r) => r.message === 'plugin stopped')?.fields.exit).toBe('exit code 0');
    expect(h.recorder.events.map((e) => [e.status, e.reason])).toEqual([['stopped', null]]);
  });

  it('stops a plugin that does not implement Shutdown (SIGTERM to its group)', async () => {
    const instance = await h.start(h.rawSpec('no-shutdown-plugin.js'));
    const started = Date.now();
    await h.runtime.stop(instance);
    expect(Date.now() - started).toBeLessThan(900);
    expect(h.logger.records.find((r) => r.message === 'plugin stopped')?.fields.exit).toBe('signal SIGTERM');
    expect(h.recorder.events.map((e) => e.status)).toEqual(['stopped']);
  });

  it('kills a plugin that ignores Shutdown and SIGTERM (SIGKILL to its group after the wait)', async () => {
    h.useOptions({ stopTimings: { shutdownMs: 1000, termMs: 300 } });
    const instance = await h.start(h.rawSpec('no-shutdown-plugin.js', ['--ignore-sigterm']));
    const started = Date.now();
    await h.runtime.stop(instance);
    expect(Date.now() - started).toBeGreaterThanOrEqual(300);
    expect(h.logger.records.find((r) => r.message === 'plugin stopped')?.fields.exit).toBe('signal SIGKILL');
    expect(h.logger.records.some((r) => r.message === 'ignoring SIGTERM')).toBe(true);
  });

  it('stopAll stops every instance and waits for their processes', async () => {
    const instances = await Promise.all([h.start(h.sdkSpec('a.plugin')), h.start(h.rawSpec('raw-plugin.js', [], 'b.plugin'))]);
    await h.runtime.stopAll();
    expect(instances.map((i) => i.pid())).toEqual([undefined, undefined]);
    expect(h.recorder.events.filter((e) => e.status === 'stopped')).toHaveLength(2);
  });
});
