import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { listProcesses } from '../../../src/adapters/grpc/process-tree';
import { isSameProcess, processStartTime, type ProcessIdentity } from '../../../src/adapters/shared/process-identity';
import { adminApi } from '../../support/clients/admin-api';
import { eventually } from '../../support/eventually';
import { ProcessSandbox } from '../../support/processes/process-sandbox';
import { buildGoFixtures, type GoFixtures } from './support/go-fixtures';
import { writeGoPluginPackage, writeHelperSpawningPlugin } from './support/plugin-packages';
import { startReapedBackend, type ReapedBackend } from './support/reaped-backend';
import { pluginFolders } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

/**
 * What a plugin leaves behind is ended with it (docs/plugin-protocol.md §4): a child in a session of its own
 * on crash, disable and uninstall, and the process groups a SIGKILLed backend left running,
 * at the next start on the same data dir. Each backend runs under a child subreaper (standing
 * in for init), whose exit proves nothing it ran is left.
 */
describe('plugin leftovers', () => {
  const sandbox = new ProcessSandbox('toolport-leftovers-');
  let go: GoFixtures;

  beforeAll(() => {
    go = buildGoFixtures();
  }, 180_000);
  afterAll(async () => {
    expect(await sandbox.teardown()).toEqual([]);
  }, 30_000);

  // Unsandboxed: the plugins report host pids; a sandbox's leftovers are the red-team suite's (test/e2e/sandbox).
  const start = (dataDir: string, args: string[] = []): Promise<ReapedBackend> => startReapedBackend(sandbox, dataDir, ['--plugin-sandbox', 'off', ...args]);

  /** The helper the plugin process with a pid other than those in `known` started: both identities. */
  async function nextHelper(pluginDataDir: string, known: Set<number>): Promise<{ plugin: number; helper: ProcessIdentity }> {
    return eventually(
      () => {
        if (!existsSync(pluginDataDir)) return undefined;
        const name = readdirSync(pluginDataDir).find((file) => file.startsWith('helper-of-') && !known.has(Number(file.slice(10))));
        if (!name) return undefined;
        const plugin = Number(name.slice(10));
        const pid = Number(readFileSync(join(pluginDataDir, name), 'utf8'));
        const startTime = processStartTime(pid);
        if (startTime === undefined) return undefined;
        known.add(plugin);
        return { plugin, helper: { pid, startTime } };
      },
      10_000,
      'the plugin to start its helper',
      { retryErrors: true },
    );
  }

  it('ends a setsid child of the plugin when the plugin crashes, is disabled and is uninstalled', async () => {
    const dataDir = join(sandbox.root, 'setsid');
    const backend = await start(dataDir, ['--restart-backoff-ms', '100']);
    const api = adminApi(backend.url, backend.token);
    expect((await api('POST', '/api/v1/plugins', { path: writeHelperSpawningPlugin(join(sandbox.root, 'pkg-helper'), 'helper.plugin') })).status).toBe(201);
    const pluginData = join(pluginFolders(dataDir), 'plugin-data', 'helper.plugin');
    const known = new Set<number>();

    const first = await nextHelper(pluginData, known);
    expect(isSameProcess(first.helper)).toBe(true);
    process.kill(first.plugin, 'SIGKILL');
    const second = await nextHelper(pluginData, known);
    expect(isSameProcess(first.helper)).toBe(false);

    expect((await api('POST', '/api/v1/plugins/helper.plugin/disable')).status).toBe(200);
    expect(isSameProcess(second.helper)).toBe(false);

    expect((await api('POST', '/api/v1/plugins/helper.plugin/enable')).status).toBe(200);
    const third = await nextHelper(pluginData, known);
    expect((await api('DELETE', '/api/v1/plugins/helper.plugin')).status).toBe(204);
    expect(isSameProcess(third.helper)).toBe(false);
    expect(await backend.stop()).toBe(0);
  });

  it('ends, at the next start and before backend.json, the plugin groups a SIGKILLed backend left running', async () => {
    const dataDir = join(sandbox.root, 'sweep');
    const first = await start(dataDir);
    const api = adminApi(first.url, first.token);
    expect((await api('POST', '/api/v1/plugins', { path: writeGoPluginPackage(join(sandbox.root, 'pkg-go'), 'go.plugin', go.plugin) })).status).toBe(201);
    const installed = join(pluginFolders(dataDir), 'plugins');
    const [plugin] = listProcesses().filter((p) => p.state !== 'Z' && readCmdline(p.pid).startsWith(installed));
    expect(plugin).toBeDefined();
    const record = join(dataDir, 'plugin-groups.json');
    expect(statSync(record).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(record, 'utf8'))).toEqual([expect.objectContaining({ leader: { pid: plugin.pid, startTime: plugin.startTime } })]);

    first.signal('SIGKILL');
    // A go-plugin plugin does not watch its host: without the sweep it would run on.
    await eventually(() => !listProcesses().some((p) => p.pid === first.pid && p.state !== 'Z'), 5000, 'the backend to die');
    expect(isSameProcess(plugin)).toBe(true);

    const second = await start(dataDir);
    expect(isSameProcess(plugin)).toBe(false);
    expect(second.stderr()).toContain('ending plugin processes a previous backend left behind');
    expect(await first.reaperExited).toBe(0);
    const records = (await adminApi(second.url, second.token)('GET', '/api/v1/plugins')).body as Array<{ id: string; status: string }>;
    expect(records.map((r) => [r.id, r.status])).toEqual([['go.plugin', 'active']]);
    expect(await second.stop()).toBe(0);
  });
});

function readCmdline(pid: number): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, 'utf8');
  } catch {
    return '';
  }
}
