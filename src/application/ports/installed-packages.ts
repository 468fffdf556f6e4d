import type { PluginManifest } from '../../domain/manifest';

/** Where a package was installed. */
export interface InstalledPackage {
  installDir: string;
  /** Absolute path of this host's executable (runtime.executables[host key] or `any`). */
  executable: string;
  args: string[];
}

/** An installed version folder moved aside by InstalledPackages.setAside. */
export interface SetAsideVersion {
  /** Removes whatever folder holds the version now and moves the set-aside one back. */
  restore(): Promise<void>;
  /** Removes the set-aside folder. */
  drop(): Promise<void>;
}

/**
 * The installed versions of plugins on this backend's disk, and each plugin's data folder:
 * what a start runs from, and what the lifecycle keeps or removes. New packages come in
 * through PackageStaging.
 */
export abstract class InstalledPackages {
  /** Whether the version `manifest` names has its folder here. */
  abstract isInstalled(manifest: PluginManifest): Promise<boolean>;

  /** Where an installed version lives and how to run it, from its manifest. */
  abstract locate(manifest: PluginManifest): InstalledPackage;

  /**
   * Checks that the installed files of the version `manifest` names are those recorded when
   * it was committed (docs/lifecycle.md §13): throws ToolportError PLUGIN_START_FAILED naming
   * the first file changed, added or removed. Call it before every start of its process.
   */
  abstract verify(manifest: PluginManifest): Promise<void>;

  /** The plugin's data folder (`TOOLPORT_PLUGIN_DATA_DIR`), created if missing. */
  abstract dataDir(pluginId: string): Promise<string>;

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
