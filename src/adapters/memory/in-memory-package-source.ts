import { createHash } from 'node:crypto';
import type { InstalledPackage, InstalledPackages, SetAsideVersion } from '../../application/ports/installed-packages';
import type { PackageStaging, StagedPackage } from '../../application/ports/package-staging';
import { InvalidPackageError, ToolportError, type Violation } from '../../domain/errors';
import type { PluginManifest } from '../../domain/manifest';

/** A package's files: relative path → content. */
export type InMemoryFiles = Record<string, string>;

type Registered = { manifest: PluginManifest; sha256: string; files: InMemoryFiles } | { violations: Violation[] };

/** One installed version: its files now, and their digests as committed. */
interface Version {
  files: Map<string, string>;
  recorded: Map<string, string>;
}

interface Staged {
  manifest: PluginManifest;
  files: InMemoryFiles;
}

function digest(content: string): string {
  return createHash('sha256').update(content).digest('hex');
}

function executableOf(manifest: PluginManifest): string {
  if (manifest.runtime?.type === 'mcp-stdio') return manifest.runtime.command;
  const executables = manifest.runtime?.executables ?? {};
  return executables[`${process.platform}-${process.arch}`] ?? executables.any ?? 'plugin';
}

/** As the file system adapter answers a `--sha256` that is not one. */
function normalizeSha256(expected: string): string {
  const value = expected.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(value)) throw new ToolportError('BAD_REQUEST', 'sha256 must be 64 hexadecimal digits');
  return value;
}

/**
 * PackageStaging and InstalledPackages over packages registered by path (tests and demos),
 * behaving as FsPackageSource does (both pass test/contracts/package-source.contract.ts).
 * "Folders" are maps of file contents, so a test can see what an install kept or removed, and
 * change an installed file as a hostile process would.
 */
export class InMemoryPackageSource implements PackageStaging, InstalledPackages {
  private readonly packages = new Map<string, Registered>();
  private readonly installed = new Map<string, Map<string, Version>>();
  private readonly dataDirs = new Set<string>();
  private readonly staged = new Map<StagedPackage, Staged>();

  constructor(private readonly root = '/memory/plugins') {}

  /**
   * Registers a valid package at `path`. Its files are `files`, or a manifest and the
   * executable the manifest names.
   */
  register(path: string, manifest: PluginManifest, sha256 = fakeSha256(path), files?: InMemoryFiles): void {
    const content = files ?? { 'manifest.yaml': `id: ${manifest.id}\nversion: ${manifest.version}\n`, [executableOf(manifest)]: '#!/bin/sh\n' };
    this.packages.set(path, { manifest: structuredClone(manifest), sha256, files: { ...content } });
  }

  /** Registers a package at `path` that breaks these rules. */
  registerInvalid(path: string, violations: Violation[]): void {
    this.packages.set(path, { violations });
  }

  /** The versions of `pluginId` with a folder on "disk". */
  installedVersions(pluginId: string): string[] {
    return [...(this.installed.get(pluginId)?.keys() ?? [])].sort();
  }

  /** The content of an installed file, or undefined. */
  installedFile(pluginId: string, version: string, file: string): string | undefined {
    return this.installed.get(pluginId)?.get(version)?.files.get(file);
  }

  /** Writes (or with `undefined`, removes) a file of an installed version, as anything on the disk could. */
  writeInstalledFile(pluginId: string, version: string, file: string, content: string | undefined): void {
    const found = this.installed.get(pluginId)?.get(version);
    if (!found) throw new Error(`${pluginId}@${version} is not installed`);
    if (content === undefined) found.files.delete(file);
    else found.files.set(file, content);
  }

  hasDataDir(pluginId: string): boolean {
    return this.dataDirs.has(pluginId);
  }

  /** Packages staged and neither committed nor discarded. */
  stagedCount(): number {
    return this.staged.size;
  }

  async stage(path: string, expectedSha256?: string): Promise<StagedPackage> {
    const expected = expectedSha256 === undefined ? undefined : normalizeSha256(expectedSha256);
    const found = this.packages.get(path);
    if (!found) throw new InvalidPackageError([{ path: '(package)', message: `no package folder or .tgz file at ${path}` }]);
    if ('violations' in found) throw new InvalidPackageError(found.violations);
    if (expected !== undefined && expected !== found.sha256) {
      throw new ToolportError('CHECKSUM_MISMATCH', `package sha256 is ${found.sha256}, expected ${expected}`, { expected, actual: found.sha256 });
    }
    return this.keepStaged(found.manifest, found.sha256, found.files);
  }

  async commit(staged: StagedPackage): Promise<InstalledPackage> {
    const found = this.staged.get(staged);
    if (!found) throw new Error('commit() of a package that is not staged here (or was already committed or discarded)');
    this.staged.delete(staged);
    const { id, version } = found.manifest;
    const versions = this.installed.get(id) ?? new Map<string, Version>();
    const files = new Map(Object.entries(found.files));
    versions.set(version, { files, recorded: new Map([...files].map(([file, content]) => [file, digest(content)])) });
    this.installed.set(id, versions);
    return this.locate(found.manifest);
  }

  /** The "bytes" are the manifest, digest and files as JSON: enough for another in-memory source to stage. */
  async tarball(staged: StagedPackage): Promise<Buffer> {
    const found = this.staged.get(staged);
    if (!found) throw new Error('tarball() of a package that is not staged here');
    return Buffer.from(JSON.stringify({ manifest: found.manifest, sha256: staged.sha256, files: found.files }));
  }

  async stageTarball(tgz: Buffer): Promise<StagedPackage> {
    let parsed: { manifest: PluginManifest; files: InMemoryFiles };
    try {
      parsed = JSON.parse(tgz.toString('utf8')) as { manifest: PluginManifest; files: InMemoryFiles };
    } catch {
      throw new InvalidPackageError([{ path: '(package)', message: 'the package file is not a gzip-compressed tar archive' }]);
    }
    // As the file system adapter: the digest of kept bytes is the digest of those bytes.
    return this.keepStaged(parsed.manifest, createHash('sha256').update(tgz).digest('hex'), parsed.files);
  }

  async isInstalled(manifest: PluginManifest): Promise<boolean> {
    return this.installed.get(manifest.id)?.has(manifest.version) ?? false;
  }

  async discard(staged: StagedPackage): Promise<void> {
    this.staged.delete(staged);
  }

  async verify(manifest: PluginManifest): Promise<void> {
    const { id, version } = manifest;
    const found = this.installed.get(id)?.get(version);
    if (!found) throw new ToolportError('PLUGIN_START_FAILED', `the installed folder of ${id}@${version} is missing`);
    const paths = [...new Set([...found.recorded.keys(), ...found.files.keys()])].sort((a, b) => Buffer.compare(Buffer.from(a), Buffer.from(b)));
    for (const path of paths) {
      const was = found.recorded.get(path);
      const now = found.files.get(path);
      const problem =
        was === undefined ? 'was added after install' : now === undefined ? 'was removed after install' : digest(now) !== was ? 'changed after install' : null;
      if (problem !== null) throw new ToolportError('PLUGIN_START_FAILED', `installed file "${path}" ${problem}; reinstall ${id} to run it`);
    }
  }

  /** As on disk: the version leaves its place until restored, so the same version can be committed again. */
  async setAside(pluginId: string, version: string): Promise<SetAsideVersion> {
    const versions = this.installed.get(pluginId);
    const aside = versions?.get(version);
    if (!versions || !aside) throw new Error(`${pluginId}@${version} is not installed`);
    versions.delete(version);
    return {
      restore: async () => {
        const now = this.installed.get(pluginId) ?? new Map<string, Version>();
        now.set(version, aside);
        this.installed.set(pluginId, now);
      },
      drop: async () => undefined,
    };
  }

  async removeVersion(pluginId: string, version: string): Promise<void> {
    const versions = this.installed.get(pluginId);
    versions?.delete(version);
    if (versions?.size === 0) this.installed.delete(pluginId);
  }

  async pruneVersions(pluginId: string, keep: string[]): Promise<void> {
    const versions = this.installed.get(pluginId);
    for (const version of [...(versions?.keys() ?? [])]) if (!keep.includes(version)) versions?.delete(version);
  }

  locate(manifest: PluginManifest): InstalledPackage {
    const installDir = `${this.root}/${manifest.id}/${manifest.version}`;
    return { installDir, executable: `${installDir}/${executableOf(manifest)}`, args: manifest.runtime?.args ?? [] };
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
    const removed = new Set<string>();
    for (const [pluginId, versions] of [...this.installed]) {
      const keep = installed.get(pluginId);
      if (keep === undefined) {
        this.installed.delete(pluginId);
        removed.add(pluginId);
        continue;
      }
      for (const version of [...versions.keys()]) {
        if (version === keep) continue;
        versions.delete(version);
        removed.add(`${pluginId}@${version}`);
      }
    }
    for (const pluginId of [...this.dataDirs]) {
      if (installed.has(pluginId)) continue;
      this.dataDirs.delete(pluginId);
      removed.add(pluginId);
    }
    return [...removed].sort();
  }

  private keepStaged(manifest: PluginManifest, sha256: string, files: InMemoryFiles): StagedPackage {
    const staged: StagedPackage = { manifest: structuredClone(manifest), sha256 };
    this.staged.set(staged, { manifest: structuredClone(manifest), files: { ...files } });
    return staged;
  }
}

function fakeSha256(path: string): string {
  let hex = '';
  for (const char of path) hex += char.charCodeAt(0).toString(16);
  return hex.padEnd(64, '0').slice(0, 64);
}
