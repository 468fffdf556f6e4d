import { chmodSync, copyFileSync, lstatSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrpcPluginRuntime } from '../../../../src/adapters/grpc/grpc-plugin-runtime';
import { ShortRunFolder } from '../../../../src/adapters/grpc/private-tmp-dir';
import { openPluginFolders, type PluginFolders } from '../../../../src/adapters/grpc/sandbox/plugin-root';
import { PluginSandbox } from '../../../../src/adapters/grpc/sandbox/plugin-sandbox';
import { PluginUids } from '../../../../src/adapters/grpc/sandbox/plugin-uids';
import type { PluginInstance, PluginLaunchSpec } from '../../../../src/application/ports/plugin-runtime';
import { CapturingLogger } from '../../../support/capturing-logger';
import { REPO_ROOT } from '../../../support/processes/toolport-paths';
import { leftoverProcesses } from '../support/proc-scan';
import { TEST_OPTIONS, toolCall } from '../support/runtime-harness';
import { descendantsOf } from '../../../../src/adapters/grpc/process-tree';

jest.setTimeout(30_000);

const FIXTURES = join(REPO_ROOT, 'test', 'fixtures', 'plugins');
/** A range of its own, so no other suite's plugin uid is met. */
const RANGE = { start: 2_090_000, end: 2_090_009 };

/** The four uids (real, effective, saved, fs) of a process, from /proc. */
function uidsOf(pid: number): number[] {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((entry) => entry.startsWith('Uid:'));
  return (line ?? '').split(/\s+/).slice(1, 5).map(Number);
}

function environmentOf(pid: number): Record<string, string> {
  const entries = readFileSync(`/proc/${pid}/environ`, 'utf8').split('\0').filter(Boolean);
  return Object.fromEntries(entries.map((entry) => [entry.slice(0, entry.indexOf('=')), entry.slice(entry.indexOf('=') + 1)]));
}

/**
 * A root backend's plugin starts (docs/plugin-protocol.md §4, sandbox; docs/operations.md §4):
 * as a uid of its own whether bubblewrap is there or not, its folders under plugin-root/, and
 * its TMPDIR in the short run folder when the data dir is too deep for a unix socket path.
 */
describe('plugin starts under a root backend', () => {
  let top: string;
  let dataDir: string;
  let folders: PluginFolders;
  let runtime: GrpcPluginRuntime;
  let logger: CapturingLogger;
  let short: ShortRunFolder;
  const seen = new Set<number>();

  beforeAll(() => {
    if (process.getuid?.() !== 0) throw new Error('these tests start plugins as other uids: run them as root (as CI does)');
  });

  beforeEach(() => {
    top = mkdtempSync(join(tmpdir(), 'toolport-uid-starts-'));
    // What any data dir's parents must allow for a plugin uid that runs unsandboxed: passing through.
    chmodSync(top, 0o711);
    // Deep enough that a socket path in a TMPDIR under it would pass 100 bytes.
    dataDir = join(top, 'a-data-dir-whose-path-is-long'.repeat(3));
    mkdirSync(dataDir, { mode: 0o700 });
    folders = openPluginFolders(dataDir, true);
    short = new ShortRunFolder(join(dataDir, 'run-folder'), folders.tmpMode);
    logger = new CapturingLogger();
  });

  afterEach(async () => {
    await runtime?.stopAll();
    short.remove();
    rmSync(top, { recursive: true, force: true });
    expect(leftoverProcesses([top], seen)).toEqual([]);
  });

  /** The raw fixture installed the way the backend installs a version: root-owned, under plugin-root/plugins. */
  function installRawPlugin(pluginId: string): PluginLaunchSpec {
    const installDir = join(folders.root, 'plugins', pluginId, '1.0.0');
    mkdirSync(installDir, { recursive: true });
    for (const file of ['raw-plugin.js', 'raw-wire.js']) copyFileSync(join(FIXTURES, file), join(installDir, file));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(installDir, 'node_modules'));
    const pluginData = join(folders.root, 'plugin-data', pluginId);
    mkdirSync(pluginData);
    // Its node_modules is the checkout's, which a sandbox shows only when granted.
    const modules = realpathSync(join(REPO_ROOT, 'node_modules'));
    return {
      pluginId,
      version: '1.0.0',
      installDir,
      executable: process.execPath,
      args: [join(installDir, 'raw-plugin.js')],
      dataDir: pluginData,
      permissions: () => Promise.resolve({ network: false, readPaths: [modules], writePaths: [], env: [] }),
    };
  }

  function useSandbox(bwrap: string | undefined): PluginSandbox {
    const uids = new PluginUids(join(dataDir, 'plugin-uids.json'), RANGE);
    const sandbox = PluginSandbox.open('auto', logger, { uids, probeUid: RANGE.start, ...(bwrap ? { bwrap } : {}) });
    runtime = new GrpcPluginRuntime(logger, {
      ...TEST_OPTIONS,
      sandbox,
      tmpRoot: folders.tmpRoot,
      tmpPlace: { mode: folders.tmpMode, shortRoot: () => short.path() },
    });
    return sandbox;
  }

  async function start(spec: PluginLaunchSpec): Promise<{ instance: PluginInstance; pid: number }> {
    const instance = await runtime.start(spec);
    const pid = instance.pid()!;
    seen.add(pid);
    return { instance, pid };
  }

  it('without bubblewrap (auto falls back to mode none) runs the plugin as its own uid, never as root', async () => {
    useSandbox(join(top, 'no-such-bwrap'));
    expect(logger.withMessage('plugins run without a sandbox: bubblewrap is unavailable')).toHaveLength(1);
    const spec = installRawPlugin('raw.none');
    const { instance, pid } = await start(spec);
    const uid = RANGE.start;
    expect(runtime.sandboxFacts('raw.none', false)).toEqual({ mode: 'none', network: true, uid });
    expect(uidsOf(pid)).toEqual([uid, uid, uid, uid]);
    // Its own folders are its uid's and closed to others; the installed version stays root's.
    const env = environmentOf(pid);
    for (const folder of [spec.dataDir, env.TMPDIR]) {
      expect(lstatSync(folder).uid).toBe(uid);
      expect(lstatSync(folder).mode & 0o777).toBe(0o700);
    }
    expect(lstatSync(spec.installDir).uid).toBe(0);
    expect(env.HOME).toBe(spec.dataDir);
    // The deep data dir: its TMPDIR, Host API socket included, is in the short run folder.
    expect(env.TMPDIR.startsWith(`${short.path()}/t`)).toBe(true);
    const answer = await runtime.invoke(instance, toolCall('echo', { n: 1 }));
    expect(answer.text).toMatch(/^raw echo /);
  });

  it('in bubblewrap with a data dir too deep for a socket path, listens on a unix socket in the short run folder, as its own uid', async () => {
    const sandbox = useSandbox(undefined);
    expect(sandbox.mode).toBe('bwrap');
    const { instance, pid } = await start(installRawPlugin('raw.deep'));
    expect(instance.network).toBe('unix');
    const tmp = environmentOf(pid).TMPDIR;
    expect(tmp.startsWith(`${short.path()}/t`)).toBe(true);
    expect(Buffer.byteLength(short.path())).toBeLessThanOrEqual(40);
    expect(lstatSync(tmp).uid).toBe(RANGE.start);
    const plugin = descendantsOf(pid).filter((found) => uidsOf(found.pid)[0] === RANGE.start);
    expect(plugin.length).toBeGreaterThan(0);
    expect((await runtime.invoke(instance, toolCall('echo', {}))).text).toMatch(/^raw echo /);
  });
});
