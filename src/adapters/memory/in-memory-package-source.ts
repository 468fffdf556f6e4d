import { PackageSource, type InstalledPackage, type SetAsideVersion, type StagedPackage } from '../../application/ports/package-source';
import { InvalidPackageError, ToolportError, type Violation } from '../../domain/errors';
import type { PluginManifest } from '../../domain/manifest';

type Registered = { manifest: PluginManifest; sha256: string } | { violations: Violation[] };

/**
 * A PackageSource over packages registered by path (tests and demos). "Folders" are entries
 * in a set, so a test can see what an install kept or removed.
 */
export class InMemoryPackageSource extends PackageSource {
  private readonly packages = new Map<string, Registered>();
  private readonly installed = new Map<string, Set<string>>();
  private readonly dataDirs = new Set<string>();
  private readonly staged = new Set<StagedPackage>();

  constructor(private readonly root = '/memory/plugins') {
    super();
  }

  /** Registers a valid package at `path`. */
  register(path: string, manifest: PluginManifest, sha256 = fakeSha256(path)): void {
    this.packages.set(path, { manifest, sha256 });
  }

  /** Registers a package at `path` that breaks these rules. */
  registerInvalid(path: string, violations: Violation[]): void {
    this.packages.set(path, { violations });
  }

  /** The versions of `pluginId` with a folder on "disk". */
  installedVersions(pluginId: string): string[] {
    return [...(this.installed.get(pluginId) ?? [])].sort();
  }

  hasDataDir(pluginId: string): boolean {
    return this.dataDirs.has(pluginId);
  }

  /** Packages staged and neither committed nor discarded. */
  stagedCount(): number {
    return this.staged.size;
  }

  async stage(path: string, expectedSha256?: string): Promise<StagedPackage> {
    const found = this.packages.get(path);
    if (!found) throw new InvalidPackageError([{ path: 'manifest.yaml', message: `no package at ${path}` }]);
    if ('violations' in found) throw new InvalidPackageError(found.violations);
    if (expectedSha256 !== undefined && expectedSha256.toLowerCase() !== found.sha256) {
      throw new ToolportError('CHECKSUM_MISMATCH', `package sha256 is ${found.sha256}, expected ${expectedSha256}`);
    }
    const staged: StagedPackage = { manifest: structuredClone(found.manifest), sha256: found.sha256 };
    this.staged.add(staged);
    return staged;
  }

  async commit(staged: StagedPackage): Promise<InstalledPackage> {
    this.staged.delete(staged);
    const { id, version } = staged.manifest;
    const versions = this.installed.get(id) ?? new Set<string>();
    versions.add(version);
    this.installed.set(id, versions);
    return this.locate(staged.manifest);
  }

  async discard(staged: StagedPackage): Promise<void> {
    this.staged.delete(staged);
  }

  /** The version stays "on disk" (a set holds it once): restore and drop only keep the set right. */
  async setAside(pluginId: string, version: string): Promise<SetAsideVersion> {
    const versions = this.installed.get(pluginId);
    const had = versions?.has(version) ?? false;
    return {
      restore: async () => {
        if (had) this.installed.get(pluginId)?.add(version);
      },
      drop: async () => undefined,
    };
  }

  async removeVersion(pluginId: string, version: string): Promise<void> {
    this.installed.get(pluginId)?.delete(version);
  }

  async pruneVersions(pluginId: string, keep: string[]): Promise<void> {
    const versions = this.installed.get(pluginId);
    for (const version of [...(versions ?? [])]) if (!keep.includes(version)) versions?.delete(version);
  }

  locate(manifest: PluginManifest): InstalledPackage {
    const installDir = `${this.root}/${manifest.id}/${manifest.version}`;
    const executables = manifest.runtime?.executables ?? {};
    const relative = executables[`${process.platform}-${process.arch}`] ?? executables.any ?? 'plugin';
    return { installDir, executable: `${installDir}/${relative}`, args: manifest.runtime?.args ?? [] };
  }

  async dataDir(pluginId: string): Promise<string> {
    this.dataDirs.add(pluginId);
    return `${this.root}-data/${pluginId}`;
  }

  async removePlugin(pluginId: string): Promise<void> {
    this.installed.delete(pluginId);
    this.dataDirs.delete(pluginId);
  }

  async sweep(installed: ReadonlyMap<string, string>): Promise<string[]> {
    const removed: string[] = [];
    for (const [pluginId, versions] of [...this.installed]) {
      const keep = installed.get(pluginId);
      if (keep === undefined) {
        this.installed.delete(pluginId);
        removed.push(pluginId);
        continue;
      }
      for (const version of [...versions]) {
        if (version === keep) continue;
        versions.delete(version);
        removed.push(`${pluginId}@${version}`);
      }
    }
    for (const pluginId of [...this.dataDirs]) {
      if (installed.has(pluginId)) continue;
      this.dataDirs.delete(pluginId);
      if (!removed.includes(pluginId)) removed.push(pluginId);
    }
    return removed.sort();
  }
}

function fakeSha256(path: string): string {
  let hex = '';
  for (const char of path) hex += char.charCodeAt(0).toString(16);
  return hex.padEnd(64, '0').slice(0, 64);
}
