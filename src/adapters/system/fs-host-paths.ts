import { constants, realpathSync } from 'node:fs';
import fs from 'node:fs/promises';
import path from 'node:path';
import { HostPaths, type ResolvedPath } from '../../application/ports/host-paths';

/** As the kernel's limit on links followed in one lookup (ELOOP past it). */
const MAX_LINKS = 40;
/** A `#!` line longer than this is not one (the kernel reads 256 bytes). */
const MAX_LINE_BYTES = 512;

function realpathOr(file: string): string {
  try {
    return realpathSync(file);
  } catch {
    return path.resolve(file);
  }
}

/**
 * HostPaths on the local disk. Paths are resolved by hand, one component at a time, so every
 * symbolic link met is seen with the folder that holds it; `PATH` is the one the backend
 * passes its plugins.
 */
export class FsHostPaths extends HostPaths {
  readonly dataDir: string;
  readonly ownNode: string;

  constructor(
    dataDir: string,
    private readonly env: NodeJS.ProcessEnv,
    ownNode: string = process.execPath,
  ) {
    super();
    this.dataDir = realpathOr(dataDir);
    this.ownNode = realpathOr(ownNode);
  }

  async resolve(target: string): Promise<ResolvedPath | undefined> {
    if (!path.isAbsolute(target)) return undefined;
    const links: ResolvedPath['links'] = [];
    let done = '/';
    let rest = target.split('/').filter((part) => part !== '' && part !== '.');
    let followed = 0;
    while (rest.length > 0) {
      const [part, ...others] = rest as [string, ...string[]];
      rest = others;
      if (part === '..') {
        done = path.dirname(done);
        continue;
      }
      const next = path.join(done, part);
      const stat = await fs.lstat(next).catch(() => undefined);
      if (!stat) return undefined;
      if (!stat.isSymbolicLink()) {
        done = next;
        continue;
      }
      if (++followed > MAX_LINKS) return undefined;
      const folder = await fs.stat(done).catch(() => undefined);
      links.push({ folder: done, othersMayWrite: folder !== undefined && (folder.mode & 0o002) !== 0 });
      const pointed = await fs.readlink(next).catch(() => undefined);
      if (pointed === undefined) return undefined;
      if (path.isAbsolute(pointed)) done = '/';
      rest = [...pointed.split('/').filter((p) => p !== '' && p !== '.'), ...rest];
    }
    return { realpath: done, links };
  }

  async interpreterLine(file: string): Promise<string | undefined> {
    let handle: fs.FileHandle | undefined;
    try {
      handle = await fs.open(file, constants.O_RDONLY);
      const buffer = Buffer.alloc(MAX_LINE_BYTES);
      const { bytesRead } = await handle.read(buffer, 0, MAX_LINE_BYTES, 0);
      const head = buffer.subarray(0, bytesRead).toString('utf8');
      if (!head.startsWith('#!')) return undefined;
      const end = head.indexOf('\n');
      return (end < 0 ? head.slice(2) : head.slice(2, end)).trim();
    } catch {
      return undefined;
    } finally {
      await handle?.close();
    }
  }

  async lookUp(name: string): Promise<string | undefined> {
    for (const folder of (this.env.PATH ?? '').split(':')) {
      if (!path.isAbsolute(folder)) continue;
      const candidate = path.join(folder, name);
      const stat = await fs.stat(candidate).catch(() => undefined);
      if (!stat?.isFile()) continue;
      if (
        await fs.access(candidate, constants.X_OK).then(
          () => true,
          () => false,
        )
      )
        return candidate;
    }
    return undefined;
  }
}
