import { existsSync, lstatSync, readdirSync, rmSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';

/**
 * What a data dir held before a `serve` began, so a start that fails (a busy port, a bad key…)
 * takes back what it wrote: the folders it created, or the entries it added to an existing data
 * dir (admin.token, secret.key, toolport.db, logs/…), and leaves nothing behind
 * (docs/operations.md §4).
 */
export class StartLeftovers {
  private constructor(
    private readonly path: string,
    /** The highest folder of the path that did not exist, when the data dir did not. */
    private readonly firstMissing: string | undefined,
    private readonly entries: ReadonlySet<string>,
    private readonly moved: ReadonlySet<string>,
  ) {}

  /**
   * `moved`: folders a start may fill with what was there before it (the plugin folders, moved
   * between layouts): a failed start removes one of these only while it holds no file.
   */
  static before(dataDir: string, moved: readonly string[] = []): StartLeftovers {
    const path = resolve(dataDir);
    let firstMissing: string | undefined;
    for (let at = path; !existsSync(at); at = dirname(at)) {
      firstMissing = at;
      if (dirname(at) === at) break;
    }
    let entries: string[] = [];
    if (!firstMissing) {
      try {
        entries = readdirSync(path);
      } catch {
        // not a readable folder: the start refuses it before writing anything
      }
    }
    return new StartLeftovers(path, firstMissing, new Set(entries), new Set(moved));
  }

  /** Removes what the failed start created; an entry that was there before is never touched. */
  removeCreated(): void {
    if (this.firstMissing) {
      rmSync(this.firstMissing, { recursive: true, force: true });
      return;
    }
    let now: string[];
    try {
      now = readdirSync(this.path);
    } catch {
      return;
    }
    for (const name of now) {
      if (this.entries.has(name)) continue;
      const entry = join(this.path, name);
      if (this.moved.has(name) && holdsAFile(entry)) continue;
      rmSync(entry, { recursive: true, force: true });
    }
  }
}

/** Whether a folder's tree holds anything but folders (links are not followed). */
function holdsAFile(path: string): boolean {
  const stat = lstatSync(path, { throwIfNoEntry: false });
  if (!stat) return false;
  if (!stat.isDirectory()) return true;
  return readdirSync(path).some((name) => holdsAFile(join(path, name)));
}
