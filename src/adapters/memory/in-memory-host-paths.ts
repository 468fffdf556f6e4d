import { isWithin } from '../../domain/permission-paths';
import { HostPaths, type ResolvedPath } from '../../application/ports/host-paths';

/**
 * The host's paths for a backend whose packages and data dirs live in memory: a path under the
 * in-memory data dir (a plugin's installed version folder, its data dir) exists as named, with
 * no link on the way, since the in-memory package source keeps those folders without a disk;
 * so are paths under the `present` folders; every other path is the real host's, as `host`
 * resolves it (granted paths, interpreters).
 */
export class InMemoryHostPaths extends HostPaths {
  readonly dataDir: string;
  readonly ownNode: string;

  /** `present`: host folders that exist, with everything under them, beside the data dir (a test's `/srv`). */
  constructor(
    private readonly host: HostPaths,
    private readonly present: readonly string[] = [],
  ) {
    super();
    this.dataDir = host.dataDir;
    this.ownNode = host.ownNode;
  }

  resolve(path: string): Promise<ResolvedPath | undefined> {
    if (this.held(path)) return Promise.resolve({ realpath: path, links: [] });
    return this.host.resolve(path);
  }

  interpreterLine(file: string): Promise<string | undefined> {
    return this.held(file) ? Promise.resolve(undefined) : this.host.interpreterLine(file);
  }

  private held(path: string): boolean {
    return isWithin(path, this.dataDir) || this.present.some((folder) => isWithin(path, folder));
  }

  lookUp(name: string): Promise<string | undefined> {
    return this.host.lookUp(name);
  }
}
