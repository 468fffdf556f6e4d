/** A path with every symbolic link on the way resolved. */
export interface ResolvedPath {
  /** Absolute, no link left in it. */
  realpath: string;
  /**
   * Each symbolic link met on the way (the path's own components and those of each link's
   * target), by the realpath of the folder that holds it and whether users other than the
   * backend's may write that folder (it is world-writable).
   */
  links: Array<{ folder: string; othersMayWrite: boolean }>;
}

/**
 * The host's file system as a plugin start sees it before it runs: what a granted path
 * really names, and which interpreter an executable needs (docs/lifecycle.md, permissions).
 * Reads only; never creates, changes or follows into anything it is not asked about.
 */
export abstract class HostPaths {
  /** The backend's data dir, resolved: nothing under it is reachable but a plugin's own folders. */
  abstract readonly dataDir: string;
  /** The realpath of the Node.js binary the backend runs on. */
  abstract readonly ownNode: string;

  /** Resolves an absolute path component by component; undefined when it (or a link on the way) leads to nothing. Never throws. */
  abstract resolve(path: string): Promise<ResolvedPath | undefined>;

  /** What follows `#!` on the first line of `file`, trimmed; undefined when it has no such line or cannot be read. Never throws. */
  abstract interpreterLine(file: string): Promise<string | undefined>;

  /** The first executable file named `name` on the `PATH` plugins are given; undefined when there is none. Never throws. */
  abstract lookUp(name: string): Promise<string | undefined>;
}
