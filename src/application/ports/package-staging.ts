import type { PluginManifest } from '../../domain/manifest';
import type { BundleOptions } from '../../domain/mcp-bundle';
import type { InstalledPackage } from './installed-packages';

/** A package read and validated into a private staging folder, not yet installed. */
export interface StagedPackage {
  manifest: PluginManifest;
  /** docs/operations.md `package_sha256`. */
  sha256: string;
}

/**
 * Reads new plugin packages (a directory or a `.tgz`) into private staging, and installs a
 * staged one as a version InstalledPackages then knows.
 */
export abstract class PackageStaging {
  /**
   * Reads and validates the package at `path` (manifest first, size caps, no traversal or
   * links leaving it). Throws InvalidPackageError, or ToolportError CHECKSUM_MISMATCH when
   * `expectedSha256` is given and differs. Nothing is written outside a temporary folder,
   * which is removed by commit() or discard(). An MCP Bundle (a `.mcpb` zip, docs/mcp-servers.md)
   * is staged as the `mcp-stdio` plugin its `manifest.json` maps to, with `bundle`'s id and
   * grants; `bundle` means nothing for any other package.
   */
  abstract stage(path: string, expectedSha256?: string, bundle?: BundleOptions): Promise<StagedPackage>;

  /** As stage(), from `.tgz` bytes another replica kept (checked by the same rules). */
  abstract stageTarball(tgz: Buffer): Promise<StagedPackage>;

  /**
   * The `.tgz` bytes of a staged package, for a store that keeps packages so other replicas
   * can install them: the file itself for a tarball, the staged folder packed for a directory.
   * Call it before commit() or discard().
   */
  abstract tarball(staged: StagedPackage): Promise<Buffer>;

  /** Drops a staged package that will not be installed. */
  abstract discard(staged: StagedPackage): Promise<void>;

  /**
   * Moves a staged package to its version folder and records the digest of every file in it,
   * which InstalledPackages.verify checks before each start.
   */
  abstract commit(staged: StagedPackage): Promise<InstalledPackage>;
}
