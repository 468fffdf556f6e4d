import { readFileSync, statSync, existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { connectHost } from '../../../packages/plugin-sdk/src/host-client';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';

jest.setTimeout(60_000);

/**
 * A plugin that reports what the Host API answers it: GetState without `state: true`, a
 * forged token, and its configuration. Built with the SDK; the forged client is the SDK's
 * own connectHost with one character added to the token.
 */
const PROBE_SOURCE = `
import { serve } from '@toolport/plugin-sdk';
import { connectHost } from './packages/plugin-sdk/src/host-client';
const outcome = (work) => work.then((value) => 'ok: ' + JSON.stringify(value ?? null), (error) => error.code + ': ' + error.message);
void serve({ tools: {
  read_state: (args, context) => outcome(context.host.state.get('cursor')),
  read_secret: (args, context) => outcome(context.host.secrets.get('oauth')),
  forged_token: () => {
    const forged = connectHost({ ...process.env, TOOLPORT_HOST_TOKEN: process.env.TOOLPORT_HOST_TOKEN + 'x' });
    return outcome(forged.config()).finally(() => forged.close());
  },
  get_config: (args, context) => outcome(context.host.config()),
} });
`;

function tool(name: string) {
  return { name, description: `Probe ${name}.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } };
}

function writeProbe(dir: string, id: string): string {
  return writePluginPackage(dir, {
    manifest: { api_version: 1, id, version: '1.0.0', agent_tools: ['read_state', 'read_secret', 'forged_token', 'get_config'].map(tool) },
    source: PROBE_SOURCE,
  });
}

/** The Host variables a running plugin process was started with (read from /proc, as root may). */
function hostEnvOf(pid: number): { address: string; token: string } {
  const env = Object.fromEntries(
    readFileSync(`/proc/${pid}/environ`, 'utf8')
      .split('\0')
      .filter((entry) => entry.includes('='))
      .map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]),
  );
  return { address: env.TOOLPORT_HOST_ADDR ?? '', token: env.TOOLPORT_HOST_TOKEN ?? '' };
}

describe('the Host API as real plugin processes reach it', () => {
  let world: BackendWorld;

  afterEach(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('denies state and secret calls without their capability and refuses a forged token', async () => {
    world = new BackendWorld();
    await world.start();
    await world.install(writeProbe(join(world.root, 'probe'), 'e2e.nocaps'));
    const agent = await world.agent(await world.session('kanban-task'));
    expect(resultText(await agent.call('kandev_e2e_nocaps_read_state', {}))).toMatch(/^PERMISSION_DENIED: GetState needs the capability "state"/);
    expect(resultText(await agent.call('kandev_e2e_nocaps_read_secret', {}))).toMatch(/^PERMISSION_DENIED: GetSecret needs the capability "secrets"/);
    expect(resultText(await agent.call('kandev_e2e_nocaps_forged_token', {}))).toMatch(/^UNAUTHENTICATED: /);
    expect(resultText(await agent.call('kandev_e2e_nocaps_get_config', {}))).toBe('ok: {}');
  });

  // Unsandboxed (`--plugin-sandbox off`): a sandboxed start's socket is in its TMPDIR (test/e2e/sandbox).
  it('gives each start its own 0600 socket in a 0700 run folder and a fresh token that dies with its process', async () => {
    world = new BackendWorld(['--restart-backoff-ms', '100', '--plugin-sandbox', 'off']);
    await world.start();
    await world.install(writeProbe(join(world.root, 'probe'), 'e2e.socket'));
    const first = await eventually(() => world.pluginPids('e2e.socket')[0], 10_000, 'the probe process');
    const granted = hostEnvOf(first);
    expect(granted.address).toMatch(new RegExp(`^unix:${join(world.dataDir, 'run')}/host-[0-9a-f]{8}/host\\.sock$`));
    const socket = granted.address.slice('unix:'.length);
    expect(Buffer.byteLength(socket)).toBeLessThan(100);
    expect(statSync(socket).mode & 0o777).toBe(0o600);
    expect(statSync(dirname(socket)).mode & 0o777).toBe(0o700);
    const outsider = connectHost({ TOOLPORT_HOST_ADDR: granted.address, TOOLPORT_HOST_TOKEN: granted.token });
    expect(await outsider.config()).toEqual({});
    outsider.close();

    process.kill(first, 'SIGKILL');
    const second = await eventually(() => world.pluginPids('e2e.socket').find((pid) => pid !== first), 10_000, 'the restarted probe');
    const regranted = await eventually(() => (hostEnvOf(second).token ? hostEnvOf(second) : undefined), 5000, 'its Host variables');
    expect(regranted.token).not.toBe(granted.token);
    expect(regranted.address).not.toBe(granted.address);
    expect(existsSync(socket)).toBe(false);
    const stale = connectHost({ TOOLPORT_HOST_ADDR: regranted.address, TOOLPORT_HOST_TOKEN: granted.token });
    await expect(stale.config()).rejects.toMatchObject({ code: 'UNAUTHENTICATED' });
    stale.close();
  });

  it('listens on 127.0.0.1 when a socket path under the data dir would reach 100 bytes', async () => {
    world = new BackendWorld(['--plugin-sandbox', 'off'], { dataDirName: `deep-${'d'.repeat(70)}` });
    await world.start();
    await world.install(writeProbe(join(world.root, 'probe'), 'e2e.tcp'));
    const pid = await eventually(() => world.pluginPids('e2e.tcp')[0], 10_000, 'the probe process');
    const granted = hostEnvOf(pid);
    expect(granted.address).toMatch(/^127\.0\.0\.1:\d+$/);
    const agent = await world.agent(await world.session('kanban-task'));
    expect(resultText(await agent.call('kandev_e2e_tcp_get_config', {}))).toBe('ok: {}');
  });
});
