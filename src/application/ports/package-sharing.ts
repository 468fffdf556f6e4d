import type { PluginRecord } from '../../domain/plugin-record';
import type { StagedPackage } from './package-staging';

/** The bytes one install or upgrade kept: a failed attempt forgets them at once (docs/operations.md §10). */
export interface KeptPackage {
  /** Drops the bytes this attempt stored, unless a record names them by now; a failure is only logged. */
  forget(): Promise<void>;
}

/**
 * Packages across replicas (docs/operations.md §10): the receiving replica keeps the bytes of
 * what it installs in the store, and a replica that lacks the version a record names unpacks
 * it from there. A backend alone on its own data dir binds the null object (`NoPackageSharing`),
 * for which all three do nothing.
 */
export abstract class PackageSharing {
  /** Keeps the staged package's bytes under its digest, before its record is committed. */
  abstract keep(staged: StagedPackage): Promise<KeptPackage>;
  /** Drops kept bytes no record names any more (after an upgrade or an uninstall); a failure only waits for the next one. */
  abstract prune(): Promise<void>;
  /**
   * Makes sure the record's version has its folder here, unpacking it from the kept bytes if
   * not, or always when `fresh` (the folder may hold other bytes of the same version: a
   * reinstall through another replica). No process may be running from that folder then.
   */
  abstract ensure(record: PluginRecord, fresh: boolean): Promise<void>;
}
