import { execFile } from 'node:child_process';
import { chmodSync } from 'node:fs';
import { dirname } from 'node:path';
import { promisify } from 'node:util';
import { newDataDir } from '../../adapters/grpc/support/plugin-specs';
import { recordedCalls, toolCall, useRuntimeHarness } from '../../adapters/grpc/support/runtime-harness';
import { buildSdkFixture, type BuiltFixture } from '../../adapters/grpc/support/sdk-fixture';
import { buildGoFixtures, type GoFixtures } from './support/go-fixtures';

jest.setTimeout(30_000);

interface Attempt {
  way: string;
  call: string;
  ok: boolean;
  detail?: string;
  uid: number;
}

/**
 * docs/plugin-protocol.md §4's boundary "only the host reaches a plugin", tried the way the issue's attacker
 * did: a process of another local user (`nobody`, through setpriv), with no credentials,
 * calling a running plugin's port directly.
 */
describe('a local attacker running as another user', () => {
  const h = useRuntimeHarness();
  let attacker: BuiltFixture;
  let go: GoFixtures;

  beforeAll(() => {
    go = buildGoFixtures();
    attacker = buildSdkFixture('attacker');
    // Readable by `nobody`: the bundle and its folder.
    chmodSync(attacker.dir, 0o755);
    chmodSync(attacker.script, 0o644);
  }, 180_000);
  afterAll(() => attacker.remove());

  async function attack(target: string, ...flags: string[]): Promise<Attempt[]> {
    const { stdout } = await promisify(execFile)(
      'setpriv',
      ['--reuid=nobody', '--regid=nogroup', '--clear-groups', process.execPath, attacker.script, target, ...flags],
      { env: { PATH: process.env.PATH }, timeout: 20_000 },
    );
    return stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Attempt);
  }

  /** The address the plugin's handshake gave (the runtime logs it at debug). */
  const addressOf = (pluginId: string) =>
    h.logger.records.find((r) => r.message === 'plugin handshake accepted' && r.fields.plugin_id === pluginId)?.fields.address as string;

  it('gets nothing from an SDK plugin over mutual TLS, cannot shut it down, and the host still calls it', async () => {
    const spec = h.sdkSpec('victim.plugin');
    const instance = await h.start(spec);
    expect(instance.tls).toBe(true);
    const pid = instance.pid();
    const attempts = await attack(addressOf('victim.plugin'));
    expect(attempts).toHaveLength(3 * 7);
    expect(new Set(attempts.map((a) => a.uid))).toEqual(new Set([65534]));
    expect(attempts.filter((a) => a.ok)).toEqual([]);

    const call = toolCall('count');
    expect((await h.runtime.invoke(instance, call)).text).toBe('counted');
    expect(recordedCalls(spec.dataDir)).toEqual([call.invocationId]);
    expect(instance.pid()).toBe(pid);
    expect(h.recorder.events).toEqual([]);
  });

  it("cannot even open a go-plugin plugin's unix socket, in its private TMPDIR", async () => {
    const instance = await h.start({
      pluginId: 'go.victim',
      version: '1.0.0',
      installDir: dirname(go.plugin),
      executable: go.plugin,
      args: [],
      dataDir: newDataDir(),
    });
    expect(instance.tls).toBe(true);
    const attempts = await attack(`unix://${addressOf('go.victim')}`);
    expect(attempts).toHaveLength(3 * 7);
    expect(attempts.filter((a) => a.ok)).toEqual([]);
    expect(attempts[0].detail).toMatch(/EACCES|permission denied/i);
    expect((await h.runtime.invoke(instance, toolCall('echo', {}))).text).toMatch(/^go echo /);
    expect(h.recorder.events).toEqual([]);
  });

  it('reaches a plaintext TCP plugin (tls: false), as the README warns: the boundary holds only with mutual TLS', async () => {
    const instance = await h.start(h.rawSpec('raw-plugin.js', [], 'plain.plugin'));
    expect(instance.tls).toBe(false);
    const [plaintext] = await attack(addressOf('plain.plugin'), '--invoke-only');
    expect(plaintext).toMatchObject({ way: 'plaintext', call: 'InvokeAgentTool', ok: true, uid: 65534 });
    expect(JSON.parse(plaintext.detail!).context.task_id).toBe('victim-task');
  });
});
