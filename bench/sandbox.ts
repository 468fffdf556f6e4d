/**
 * A sandboxed plugin beside an unsandboxed one (README "Performance"; docs/plugin-protocol.md §4,
 * sandbox): the same SDK plugin started by the same runtime code in bubblewrap (as its own uid
 * when the bench runs as root, as a root backend would) and with `--plugin-sandbox off`. A start
 * is the runtime's whole start, spawn to the first SERVING health answer; starts and calls
 * alternate one by one, so the drifting load of a shared machine falls on both alike.
 */
import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GrpcPluginRuntime } from '../src/adapters/grpc/grpc-plugin-runtime';
import { ShortRunFolder } from '../src/adapters/grpc/private-tmp-dir';
import { openPluginFolders } from '../src/adapters/grpc/sandbox/plugin-root';
import { PluginSandbox } from '../src/adapters/grpc/sandbox/plugin-sandbox';
import { PluginUids } from '../src/adapters/grpc/sandbox/plugin-uids';
import { SilentLogger } from '../src/adapters/memory/silent-logger';
import type { PluginCall, PluginInstance, PluginLaunchSpec } from '../src/application/ports/plugin-runtime';
import { bundleEntry } from '../packages/plugin-sdk/test/support/bundle-fixture';
import { REPO_ROOT } from '../test/support/processes/toolport-paths';
import { alternating, pairedDifferenceP50, spread, type Spread } from './stats';

export interface SandboxCost {
  /** `bwrap` when bubblewrap worked here; else the reason the sandboxed side could not run. */
  sandbox: string;
  /** The plugin uid of the sandboxed side (a root bench), or null. */
  uid: number | null;
  startRounds: number;
  start: { sandboxed: Spread; unsandboxed: Spread; pairedDifferenceP50: number };
  callRounds: number;
  call: { sandboxed: Spread; unsandboxed: Spread; pairedDifferenceP50: number };
  /** How the host reached each side's plugin. */
  channel: { sandboxed: string; unsandboxed: string };
}

const PLUGIN_ID = 'bench.sandbox';

export async function measureSandbox(startRounds = 20, callRounds = 2000, warmup = 200): Promise<SandboxCost> {
  const top = mkdtempSync(join(tmpdir(), 'toolport-bench-sandbox-'));
  const root = process.getuid?.() === 0;
  const dataDir = join(top, 'data');
  mkdirSync(dataDir, { mode: 0o700 });
  const folders = openPluginFolders(dataDir, root);
  const installDir = join(folders.root, 'plugins', PLUGIN_ID, '1.0.0');
  const pluginData = join(folders.root, 'plugin-data', PLUGIN_ID);
  mkdirSync(installDir, { recursive: true });
  mkdirSync(pluginData, { recursive: true });
  const bundle = bundleEntry(join(REPO_ROOT, 'bench', 'sandbox-plugin.ts'));
  copyFileSync(bundle.script, join(installDir, 'main.js'));
  bundle.remove();
  const spec: PluginLaunchSpec = {
    pluginId: PLUGIN_ID,
    version: '1.0.0',
    installDir,
    executable: process.execPath,
    args: [join(installDir, 'main.js')],
    dataDir: pluginData,
  };

  const logger = new SilentLogger();
  const range = { start: 2_095_000, end: 2_095_009 };
  const uids = root ? new PluginUids(join(dataDir, 'plugin-uids.json'), range) : undefined;
  const sandbox = PluginSandbox.open('require', logger, { ...(uids ? { uids } : {}), probeUid: range.start });
  const short = new ShortRunFolder(join(dataDir, 'run-folder'), folders.tmpMode);
  const common = { startTimeoutMs: 10_000, healthIntervalMs: 60_000, restartBackoffMs: 1000, env: { PATH: process.env.PATH } };
  const place = { mode: folders.tmpMode, shortRoot: () => short.path() };
  const sandboxed = new GrpcPluginRuntime(logger, { ...common, sandbox, tmpRoot: folders.tmpRoot, tmpPlace: place });
  const off = PluginSandbox.open('off', logger);
  const unsandboxed = new GrpcPluginRuntime(logger, { ...common, sandbox: off, tmpRoot: join(dataDir, 'plugin-tmp-off') });
  try {
    const decision = sandbox.decide(PLUGIN_ID);
    if (decision.mode === 'refused') throw new Error(decision.why);
    const runtimes = [sandboxed, unsandboxed];
    await timedStarts(2, runtimes, spec);
    const [startIn, startOut] = (await timedStarts(startRounds, runtimes, spec)) as [number[], number[]];

    const inside = await sandboxed.start(spec);
    const outside = await unsandboxed.start(spec);
    const call = (runtime: GrpcPluginRuntime, instance: PluginInstance) => async (n: number) => {
      const result = await runtime.invoke(instance, echoCall(n));
      if (result.text !== `v${n}`) throw new Error(`unexpected answer ${result.text}`);
    };
    const sides = [call(sandboxed, inside), call(unsandboxed, outside)];
    await alternating(warmup, sides);
    const [callIn, callOut] = (await alternating(callRounds, sides)) as [number[], number[]];
    return {
      sandbox: sandbox.mode,
      uid: sandbox.uidOf(PLUGIN_ID),
      startRounds,
      start: { sandboxed: spread(startIn), unsandboxed: spread(startOut), pairedDifferenceP50: pairedDifferenceP50(startIn, startOut) },
      callRounds,
      call: { sandboxed: spread(callIn), unsandboxed: spread(callOut), pairedDifferenceP50: pairedDifferenceP50(callIn, callOut) },
      channel: { sandboxed: channelOf(inside), unsandboxed: channelOf(outside) },
    };
  } finally {
    await sandboxed.stopAll();
    await unsandboxed.stopAll();
    short.remove();
    rmSync(top, { recursive: true, force: true });
  }
}

/**
 * Each runtime's start of `spec` once per round, in a random order each round, in ms: the whole
 * `runtime.start` (spawn to the first SERVING answer); the stop after it is not counted.
 */
async function timedStarts(rounds: number, runtimes: readonly GrpcPluginRuntime[], spec: PluginLaunchSpec): Promise<number[][]> {
  const times = runtimes.map(() => [] as number[]);
  for (let i = 0; i < rounds; i++) {
    const order = runtimes.map((_, index) => index).sort(() => Math.random() - 0.5);
    for (const side of order) {
      const started = performance.now();
      const instance = await runtimes[side]!.start(spec);
      times[side]!.push(performance.now() - started);
      await runtimes[side]!.stop(instance);
    }
  }
  return times;
}

function channelOf(instance: PluginInstance): string {
  return `${instance.network ?? 'unknown'}${instance.tls ? ', mutual TLS' : ', no TLS'}`;
}

function echoCall(n: number): PluginCall {
  return {
    invocationId: `bench-${n}`,
    localName: 'echo',
    argumentsJson: JSON.stringify({ value: `v${n}` }),
    context: { task_id: 'bench', session_id: 'bench', workspace_id: 'bench', surface: 'kanban-task', profile: 'default' },
    timeoutMs: 10_000,
    signal: new AbortController().signal,
  };
}
