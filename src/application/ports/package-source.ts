import type { PluginManifest } from '../../domain/manifest';

/** A package read and validated into a private staging folder, not yet installed. */
export interface StagedPackage {
  manifest: PluginManifest;
  /** docs/operations.md `package_sha256`. */
  sha256: string;
}

/** Where a package was installed. */
export interface InstalledPackage {
  installDir: string;
  /** Absolute path of this host's executable (runtime.executables[host key] or `any`). */
  executable: string;
  args: string[];
}

/** An installed version folder moved aside by PackageSource.setAside. */
export interface SetAsideVersion {
  /** Removes whatever folder holds the version now and moves the set-aside one back. */
  restore(): Promise<void>;
  /** Removes the set-aside folder. */
  drop(): Promise<void>;
}

/**
 * Reads plugin packages (a directory or a `.tgz`) and keeps installed versions on disk.
 */
export abstract class PackageSource {
  /**
   * Reads and validates the package at `path` (manifest first, size caps, no traversal or
   * links leaving it). Throws InvalidPackageError, or ToolportError CHECKSUM_MISMATCH when
   * `expectedSha256` is given and differs. Nothing is written outside a temporary folder,
   * which is removed by commit() or discard().
   */
  abstract stage(path: string, expectedSha256?: string): Promise<StagedPackage>;

  /** Moves a staged package to `<data-dir>/plugins/<id>/<version>/`. */
  abstract commit(staged: StagedPackage): Promise<InstalledPackage>;

  /**
   * The `.tgz` bytes of a staged package, for a store that keeps packages so other replicas
   * can install them: the file itself for a tarball, the staged folder packed for a directory.
   * Call it before commit() or discard().
   */
  abstract tarball(staged: StagedPackage): Promise<Buffer>;

  /** As stage(), from `.tgz` bytes another replica kept (checked by the same rules). */
  abstract stageTarball(tgz: Buffer): Promise<StagedPackage>;

  /** Whether the version `manifest` names has its folder here. */
  abstract isInstalled(manifest: PluginManifest): Promise<boolean>;

  /** Drops a staged package that will not be installed. */
  abstract discard(staged: StagedPackage): Promise<void>;

  /**
   * Moves the installed folder of `version` out of the way so the same version can be
   * committed again (`install --force`), the process running from it untouched. The answer
   * puts it back (the new one failed) or removes it (the new one runs).
   */
  abstract setAside(pluginId: string, version: string): Promise<SetAsideVersion>;

  /** Removes one installed version folder (a failed install or upgrade). */
  abstract removeVersion(pluginId: string, version: string): Promise<void>;

  /** Removes every version folder except those in `keep` (after a successful upgrade). */
  abstract pruneVersions(pluginId: string, keep: string[]): Promise<void>;

  /** Where an installed version lives and how to run it, from its manifest. */
  abstract locate(manifest: PluginManifest): InstalledPackage;

  /** The plugin's data folder (`TOOLPORT_PLUGIN_DATA_DIR`), created if missing. */
  abstract dataDir(pluginId: string): Promise<string>;

  /** Removes every version folder and the data folder of the plugin (uninstall). */
  abstract removePlugin(pluginId: string): Promise<void>;

  /**
   * Removes every version folder and data folder no record names: what a crash during an
   * uninstall or an upgrade left behind. `installed` maps each plugin id to the version its
   * record names. Answers what it removed (`<id>` for a whole plugin, `<id>@<version>`).
   * Call it at start, before any plugin runs.
   */
  abstract sweep(installed: ReadonlyMap<string, string>): Promise<string[]>;
}
