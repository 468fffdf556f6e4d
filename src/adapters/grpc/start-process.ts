import { closeSync, constants, fchmodSync, fchownSync, lchownSync, openSync } from 'node:fs';
import { dirname } from 'node:path';
import type { HostGrant, HostPlacement } from '../../application/ports/host-access';
import type { Logger } from '../../application/ports/logger';
import type { LaunchPermissions, PluginLaunchSpec } from '../../application/ports/plugin-runtime';
import { PluginStartError } from '../../domain/errors';
import { withHostAccess } from './plugin-environment';
import { PluginProcess, type ProcessStdio } from './plugin-process';
import type { ProcessGroupRecord } from './process-group-record';
import { makePrivateTmpDir, type PrivateTmpDir, type TmpDirPlace } from './private-tmp-dir';
import { bwrapArguments } from './sandbox/bwrap-arguments';
import type { PluginSandbox, SandboxDecision } from './sandbox/plugin-sandbox';
import { letOthersPass } from './sandbox/plugin-root';
import { readableByOthers } from './sandbox/readable-by-others';
import type { StopTimings } from './stop-plugin-process';

/** How one start goes: the runtime's options that concern a single process. */
export interface LaunchOptions {
  /** The host environment the §8 allow-list is taken from. */
  hostEnv: NodeJS.ProcessEnv;
  startTimeoutMs: number;
  stopTimings: StopTimings;
  /** Refuse a plugin that answers without a server certificate (plaintext). */
  requireTls: boolean;
  /** Why TLS is required, for the refusal's reason. */
  requireTlsBecause: string;
  /** Whether a sandboxed plugin's unix socket (in its private TMPDIR) meets `requireTls`. */
  privateSocketSatisfiesTls?: boolean;
  /** Where each start's private TMPDIR is made. */
  tmpRoot: string;
  /** Its mode, and the short folder used when a socket path under it would be too long. */
  tmpPlace?: TmpDirPlace;
  /** Where started process groups are recorded, so a later backend can end them. */
  groups?: ProcessGroupRecord;
  /** The backend's sandbox; absent, plugins run unsandboxed as the backend's user. */
  sandbox?: PluginSandbox;
}

/** What a start may reach when its spec grants nothing (docs/plugin-protocol.md §4, sandbox). */
const NOTHING_GRANTED: LaunchPermissions = { network: false, readPaths: [], writePaths: [], env: [] };

/** What differs between kinds of plugin process: its environment, and how its stdio is used. */
export interface StartSetup {
  /** The whole environment but TMPDIR (and the Host API variables, which hostAccess adds). */
  environment(start: { tmpDir: string; sandboxed: boolean; permissions: LaunchPermissions }): NodeJS.ProcessEnv;
  /** Whether this kind gets the Host API (the spec's hostGrant); an MCP server does not. */
  hostAccess: boolean;
  /** Stdio other than the go-plugin handshake's (an MCP server's stdin and stdout). */
  stdio?: ProcessStdio;
}

/** One spawned, recorded process of a start, before its protocol has said anything. */
export interface SpawnedStart {
  child: PluginProcess;
  permissions: LaunchPermissions;
  sandboxed: boolean;
  decision: SandboxDecision;
  /** Its private TMPDIR, removed once it exited. */
  tmpDir: string;
  grant?: HostGrant;
}

/**
 * The part of a start every plugin process shares (docs/plugin-protocol.md §4, sandbox): the
 * sandbox decision, the installed-files check, the granted reach, a private TMPDIR (its
 * folders given to its own uid under a root backend), the Host grant, the spawn (in bubblewrap
 * when sandboxed) in its own process group, and the group record. Rejects with a
 * PluginStartError and leaves nothing behind when any of it fails.
 */
export async function spawnForStart(spec: PluginLaunchSpec, options: LaunchOptions, logger: Logger, setup: StartSetup): Promise<SpawnedStart> {
  const decision: SandboxDecision = options.sandbox?.decide(spec.pluginId) ?? { mode: 'none' };
  if (decision.mode === 'refused') throw startError(spec, decision.why);
  await checkFilesOf(spec);
  const permissions = await permissionsOf(spec);
  const sandboxed = decision.mode === 'bwrap';
  // Under a root backend a plugin runs as its own uid, sandboxed or not (docs/plugin-protocol.md §4, sandbox).
  const uid = decision.uid;
  const tmpDir = makePrivateTmpDir(options.tmpRoot, options.tmpPlace);
  if (tmpDir.outsideRoot) logger.warn({ tmp_dir: tmpDir.path }, 'plugin TMPDIR made outside the data dir: a socket path there would reach 100 bytes');
  try {
    if (uid !== undefined) ownFoldersFor(uid, spec, tmpDir);
  } catch (error) {
    tmpDir.remove();
    throw startError(spec, `its folders could not be given to its uid ${uid} (${(error as Error).message})`);
  }
  const env = setup.environment({ tmpDir: tmpDir.path, sandboxed, permissions });
  const grant = setup.hostAccess
    ? await hostGrantFor(spec, sandboxed || uid !== undefined ? { socketDir: tmpDir.path, uid } : undefined).catch((error: unknown) => {
        tmpDir.remove();
        throw error;
      })
    : undefined;
  const spawnEnv = { ...(grant ? withHostAccess(env, grant) : env), TMPDIR: tmpDir.path };
  const command =
    sandboxed && options.sandbox ? sandboxCommand(options.sandbox, spec, permissions, tmpDir.path, uid) : uid !== undefined ? asUid(uid, spec) : undefined;
  const child = await PluginProcess.spawn(spec, spawnEnv, logger, command, setup.stdio).catch((error: Error) => {
    tmpDir.remove();
    grant?.release();
    throw startError(spec, error.message);
  });
  // The Host token works exactly as long as this process runs.
  if (grant) void child.exitEvent.then(() => grant.release());
  const leader = child.identity();
  if (leader) {
    options.groups?.add({ leader, descendants: [], tmpDir: tmpDir.path });
    child.onDescendants((known) => options.groups?.setDescendants(leader.pid, known));
  }
  void child.exited.then(() => {
    if (leader) options.groups?.remove(leader.pid);
    tmpDir.remove();
  });
  return { child, permissions, sandboxed, decision, tmpDir: tmpDir.path, ...(grant ? { grant } : {}) };
}

export function startError(spec: PluginLaunchSpec, reason: string): PluginStartError {
  return new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${reason}`, null, []);
}

/** bubblewrap running the executable in the start's layout (docs/plugin-protocol.md §4, sandbox). */
function sandboxCommand(
  sandbox: PluginSandbox,
  spec: PluginLaunchSpec,
  permissions: LaunchPermissions,
  tmpDir: string,
  uid: number | undefined,
): { file: string; args: string[] } {
  const layout = {
    installDir: spec.installDir,
    dataDir: spec.dataDir,
    tmpDir,
    network: permissions.network,
    readPaths: permissions.readPaths,
    writePaths: permissions.writePaths,
    uid,
  };
  return { file: sandbox.bwrap, args: bwrapArguments(layout, spec.executable, spec.args, sandbox.system, sandbox.resolver) };
}

/**
 * Unsandboxed under a root backend (`auto` without bubblewrap): the executable run as `uid`
 * all the same, with no groups, no capabilities and no_new_privs, as in the sandbox.
 */
function asUid(uid: number, spec: PluginLaunchSpec): { file: string; args: string[] } {
  const id = String(uid);
  return {
    file: SETPRIV,
    args: ['--reuid', id, '--regid', id, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--', spec.executable, ...spec.args],
  };
}

/** util-linux's setpriv, which drops root for a plugin uid. */
const SETPRIV = '/usr/bin/setpriv';

/**
 * Under a root backend the plugin runs as `uid`: its data dir and this start's TMPDIR become
 * its own, 0700 (each folder itself, never recursively nor through a link: the data dir is
 * opened without following one), its installed version readable to it (root-owned, folders
 * 0755, files 0644 or 0755) and the folder above it one it may pass through.
 */
function ownFoldersFor(uid: number, spec: PluginLaunchSpec, tmpDir: PrivateTmpDir): void {
  lchownSync(tmpDir.path, uid, uid);
  const fd = openSync(spec.dataDir, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_DIRECTORY);
  try {
    fchownSync(fd, uid, uid);
    fchmodSync(fd, 0o700);
  } finally {
    closeSync(fd);
  }
  letOthersPass(dirname(spec.installDir));
  readableByOthers(spec.installDir);
}

async function permissionsOf(spec: PluginLaunchSpec): Promise<LaunchPermissions> {
  try {
    return (await spec.permissions?.()) ?? NOTHING_GRANTED;
  } catch (error) {
    throw startError(spec, (error as Error).message);
  }
}

/** The installed files, checked before anything is made for this start (docs/lifecycle.md §13). */
async function checkFilesOf(spec: PluginLaunchSpec): Promise<void> {
  try {
    await spec.checkFiles?.();
  } catch (error) {
    throw new PluginStartError(`plugin ${spec.pluginId} ${spec.version} failed to start: ${(error as Error).message}`, null, []);
  }
}

async function hostGrantFor(spec: PluginLaunchSpec, placement: HostPlacement | undefined): Promise<HostGrant | undefined> {
  try {
    return await spec.hostGrant?.(placement);
  } catch (error) {
    throw new PluginStartError(
      `plugin ${spec.pluginId} ${spec.version} failed to start: the Host API could not be opened (${(error as Error).message})`,
      null,
      [],
    );
  }
}
