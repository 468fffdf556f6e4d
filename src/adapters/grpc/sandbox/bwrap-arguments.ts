import { lstatSync, readlinkSync, realpathSync } from 'node:fs';

/** The system folders every sandbox holds read-only, each as the host has it (a folder, or a link kept as a link). */
export const SYSTEM_PATHS = ['/usr', '/bin', '/sbin', '/lib', '/lib32', '/lib64', '/libx32', '/etc'] as const;

/** What one sandboxed start may reach, every path an absolute host path bound at the same path. */
export interface SandboxLayout {
  /** The installed version's folder: read-only, the working directory. */
  installDir: string;
  /** Its TOOLPORT_PLUGIN_DATA_DIR (and HOME): read-write. */
  dataDir: string;
  /** Its private TMPDIR for this start: read-write. */
  tmpDir: string;
  /** Share the host's network namespace (the `network` permission). */
  network: boolean;
  readPaths: readonly string[];
  writePaths: readonly string[];
  /**
   * Run the plugin as this uid and gid: bubblewrap runs as root (which it needs to bind what
   * only root may open) and `setpriv` drops to the uid with every capability gone.
   */
  uid?: number;
}

/** How the host's system paths are mounted: links kept as links, folders bound read-only, absent ones skipped. */
export type SystemEntry = { path: string; link: string } | { path: string; folder: true };

/** The host's system entries, read now. */
export function hostSystemEntries(paths: readonly string[] = SYSTEM_PATHS): SystemEntry[] {
  const entries: SystemEntry[] = [];
  for (const path of paths) {
    const stat = lstatSync(path, { throwIfNoEntry: false });
    if (!stat) continue;
    if (stat.isSymbolicLink()) entries.push({ path, link: readlinkSync(path) });
    else if (stat.isDirectory()) entries.push({ path, folder: true });
  }
  return entries;
}

/** With `network`, where /etc/resolv.conf and /etc/hosts really are (a link may leave /etc). */
export function resolverFiles(): string[] {
  const found: string[] = [];
  for (const file of ['/etc/resolv.conf', '/etc/hosts']) {
    try {
      const real = realpathSync(file);
      if (!real.startsWith('/etc/') && !real.startsWith('/usr/')) found.push(real);
    } catch {
      // absent: nothing to bind
    }
  }
  return found;
}

/**
 * bubblewrap's arguments for one start, then the command (docs/plugin-protocol.md §4, sandbox):
 * new mount, PID, IPC, UTS (and cgroup when possible) namespaces, a network namespace of its
 * own unless `network`; no capabilities, no_new_privs; it dies with the backend and, as the
 * PID namespace's first process goes, every process in it goes too (a `setsid` child
 * included); a new session, so it cannot push input into the backend's terminal. An empty,
 * read-only root with the system folders read-only, its own folders, a fresh /proc and a
 * minimal /dev.
 */
export function bwrapArguments(
  layout: SandboxLayout,
  command: string,
  args: readonly string[],
  system: readonly SystemEntry[],
  resolver: readonly string[] = [],
): string[] {
  const out: string[] = ['--unshare-ipc', '--unshare-pid', '--unshare-uts', '--unshare-cgroup-try'];
  // Unprivileged, bubblewrap needs a user namespace; as root it would map the plugin to root outside.
  if (layout.uid === undefined) out.push('--unshare-user');
  if (!layout.network) out.push('--unshare-net');
  out.push('--die-with-parent', '--new-session');
  // As root, setpriv below drops the capabilities after the uid switch, which needs one.
  if (layout.uid === undefined) out.push('--cap-drop', 'ALL');
  for (const entry of system) {
    if ('link' in entry) out.push('--symlink', entry.link, entry.path);
    else out.push('--ro-bind', entry.path, entry.path);
  }
  if (layout.network) for (const file of resolver) out.push('--ro-bind-try', file, file);
  out.push('--proc', '/proc', '--dev', '/dev');
  const bound = [...layout.readPaths, layout.installDir, layout.dataDir, ...layout.writePaths, layout.tmpDir];
  // bubblewrap would copy each parent's host mode (a 0700 data dir): open them so a plugin uid can pass.
  for (const folder of parentsToMake(bound, system)) out.push('--perms', '0755', '--dir', folder);
  for (const path of layout.readPaths) out.push('--ro-bind', path, path);
  out.push('--ro-bind', layout.installDir, layout.installDir);
  out.push('--bind', layout.dataDir, layout.dataDir);
  for (const path of layout.writePaths) out.push('--bind', path, path);
  out.push('--bind', layout.tmpDir, layout.tmpDir);
  // The empty root and the folders made in it, read-only once built: in a user namespace the
  // plugin owns them, and could otherwise write files outside its own folders.
  out.push('--remount-ro', '/');
  out.push('--chdir', layout.installDir, '--');
  if (layout.uid !== undefined) {
    const id = String(layout.uid);
    out.push('/usr/bin/setpriv', '--reuid', id, '--regid', id, '--clear-groups', '--inh-caps=-all', '--bounding-set=-all', '--no-new-privs', '--');
  }
  out.push(command, ...args);
  return out;
}

/** The folders above the bound paths that the sandbox's empty root must get, shallowest first. */
function parentsToMake(bound: readonly string[], system: readonly SystemEntry[]): string[] {
  const covered = (path: string): boolean =>
    [...bound, ...system.map((entry) => entry.path), '/proc', '/dev'].some((top) => path === top || path.startsWith(`${top}/`));
  const parents = new Set<string>();
  for (const path of bound) {
    const parts = path.split('/').filter(Boolean);
    for (let depth = 1; depth < parts.length; depth += 1) {
      const folder = `/${parts.slice(0, depth).join('/')}`;
      if (!covered(folder)) parents.add(folder);
    }
  }
  return [...parents].sort((a, b) => a.split('/').length - b.split('/').length || a.localeCompare(b));
}
