import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { processExists } from '../../adapters/grpc/support/proc-scan';
import { newDataDir } from '../../adapters/grpc/support/plugin-specs';
import { toolCall, useRuntimeHarness } from '../../adapters/grpc/support/runtime-harness';
import type { PluginLaunchSpec } from '../../../src/application/ports/plugin-runtime';
import { buildGoFixtures, type GoFixtures } from './support/go-fixtures';

jest.setTimeout(30_000);

/**
 * Toolport runs a plugin written in Go with HashiCorp go-plugin (Debian's 1.0.1) as its
 * author would build it: AutoMTLS answered by the library, a unix socket in the TMPDIR it is
 * given, hclog JSON on stderr, and its Shutdown that closes the connection instead of replying.
 */
describe('a go-plugin plugin under the Toolport runtime', () => {
  const h = useRuntimeHarness();
  let go: GoFixtures;
  let root: string;

  beforeAll(() => {
    go = buildGoFixtures();
  }, 180_000);
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'toolport-go-'));
    h.useOptions({ tmpRoot: join(root, 'plugin-tmp') });
  });
  afterEach(() => {
    for (const pid of h.seenPids) expect(processExists(pid)).toBe(false);
    rmSync(root, { recursive: true, force: true });
  });

  const goSpec = (): PluginLaunchSpec => ({
    pluginId: 'go.plugin',
    version: '1.0.0',
    installDir: dirname(go.plugin),
    executable: go.plugin,
    args: [],
    dataDir: newDataDir(),
  });

  it('is spoken to over mutual TLS on its unix socket in the private TMPDIR, and reports tls: true', async () => {
    const instance = await h.start(goSpec());
    expect(instance.tls).toBe(true);
    const call = toolCall('echo', { from: 'toolport' });
    const result = await h.runtime.invoke(instance, call);
    expect(result.text).toBe(`go echo ${call.invocationId}`);
    // The Go fixture's generated code predates AgentToolContext.profile, so it echoes the other four.
    const { profile: _profile, ...known } = call.context;
    expect(JSON.parse(result.structuredContentJson)).toEqual({ arguments: { from: 'toolport' }, context: known, pid: instance.pid() });
    const address = h.logger.records.find((r) => r.message === 'plugin address')?.fields.plugin_fields as { network: string; address: string };
    expect(address.network).toBe('unix');
    expect(dirname(dirname(address.address))).toBe(join(root, 'plugin-tmp'));
    expect(Buffer.byteLength(address.address)).toBeLessThan(100);
    expect(h.logger.records.some((r) => r.message === 'configuring server automatic mTLS')).toBe(true);
  });

  it('keeps the level of each hclog record, tagged with the plugin id', async () => {
    const instance = await h.start(goSpec());
    await h.runtime.invoke(instance, toolCall('log'));
    const deadline = Date.now() + 3000;
    const logged = () => h.logger.records.filter((r) => /^go \w+ record$/.test(r.message));
    while (logged().length < 5 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 10));
    expect(logged().map((r) => [r.message, r.level, r.fields.plugin_id, (r.fields.plugin_fields as { step: number }).step])).toEqual([
      ['go trace record', 'debug', 'go.plugin', 1],
      ['go debug record', 'debug', 'go.plugin', 2],
      ['go info record', 'info', 'go.plugin', 3],
      ['go warn record', 'warn', 'go.plugin', 4],
      ['go error record', 'error', 'go.plugin', 5],
    ]);
  });

  it('stops through Shutdown, whose connection closing counts as acknowledged: it exits 0 well within the second', async () => {
    const instance = await h.start(goSpec());
    const started = Date.now();
    await h.runtime.stop(instance);
    expect(Date.now() - started).toBeLessThan(900);
    expect(h.logger.records.find((r) => r.message === 'plugin stopped')?.fields).toMatchObject({ exit: 'exit code 0', shutdown: 'acknowledged' });
  });
});
