import fs from 'node:fs/promises';
import path from 'node:path';
import { create as packTar } from 'tar';
import type { InstalledPackage, InstalledPackages, SetAsideVersion } from '../../application/ports/installed-packages';
import type { PackageStaging, StagedPackage } from '../../application/ports/package-staging';
import YAML from 'yaml';
import { InvalidPackageError, ToolportError, type Violation } from '../../domain/errors';
import { mapBundleManifest, type BundleOptions } from '../../domain/mcp-bundle';
import type { PluginManifest } from '../../domain/manifest';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import { copyPackageDirectory } from './directory-copy';
import { directoryDigest } from './directory-digest';
import { firstDifference, parseSeal, readInstalledFiles, sealText } from './installed-files';
import { linksLeaving } from './link-check';
import { MANIFEST_FILE, readPackageManifest } from './package-manifest-reader';
import { currentHostKey, executableFor, prepareExecutable } from './package-executable';
import { isBareInterpreter } from '../../domain/runtime-validation';
import { DEFAULT_PACKAGE_LIMITS, PACKAGE_PATH, type PackageLimits } from './package-limits';
import { findPackageRoot } from './package-root';
import { compressedCap, copyFileHashing, writeFileHashing } from './staged-file';
import { extractTarball, inspectTarball } from './tarball-reader';
import { readBundleManifest, readHead } from './bundle-manifest-reader';
import { extractZip, isZipHead } from './zip-reader';

export interface FsPackageSourceOptions {
  limits?: PackageLimits;
  /** Defaults to this machine's `<platform>-<arch>`. */
  hostKey?: string;
  /** Where `plugins/` and `plugin-data/` are: `<data-dir>/plugin-root` under a root backend (docs/operations.md §4); defaults to the data dir. */
  pluginRoot?: string;
}

interface Staging {
  /** The private staging folder, removed on commit, discard or failure. */
  dir: string;
  /** The package root inside it. */
  root: string;
  /** The staged copy of the `.tgz` it came from, when it came from one. */
  tarball?: string;
}

/** The staged copy of a `.tgz` package, beside the folder it is extracted into. */
const STAGED_TARBALL = 'package.tgz';

/** The staged seal, beside the package folder until both move into place. */
const STAGED_SEAL = 'files.json';

/** Names the seal of a version beside its folder; no version starts with a dot. */
const SEAL_PREFIX = '.files-';

/** The version an entry of `plugins/<id>/` belongs to: a version folder, or a version's seal. */
function versionOfEntry(name: string): string {
  return name.startsWith(SEAL_PREFIX) ? name.slice(SEAL_PREFIX.length) : name;
}

function isMissing(error: unknown): boolean {
  return (error as NodeJS.ErrnoException).code === 'ENOENT';
}

/** A folder or file name taken from an id or version; never a path. */
function segment(name: string): string {
  if (name === '' || name === '.' || name === '..' || /[/\\\0]/.test(name)) {
    throw new ToolportError('BAD_REQUEST', `"${name}" is not a valid plugin id or version`);
  }
  return name;
}

function normalizeSha256(expected: string): string {
  const value = expected.trim().toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(value)) throw new ToolportError('BAD_REQUEST', 'sha256 must be 64 hexadecimal digits');
  return value;
}

/**
 * Plugin packages on the local disk. Layout under the data dir:
 * `plugins/<id>/<version>/` (installed versions), `plugins/<id>/.files-<version>` (the seal:
 * each installed file's digest, docs/operations.md §4), `plugin-data/<id>/` (the plugin's own
 * data, kept across versions) and `tmp/stage-*` (private staging folders).
 *
 * A `.tgz` may hold the package at its root or inside a single top-level folder (what
 * `tar czf p.tgz my-plugin/` makes); a directory must have `manifest.yaml` at its root. A
 * file that is a zip is an MCP Bundle, with `manifest.json` at its root.
 */
export class FsPackageSource implements PackageStaging, InstalledPackages {
  private readonly staged = new WeakMap<StagedPackage, Staging>();
  private readonly limits: PackageLimits;
  private readonly hostKey: string;
  private readonly pluginRoot: string;

  constructor(
    private readonly root: string,
    private readonly schemas: SchemaCompiler,
    private readonly toolportVersion: string,
    options: FsPackageSourceOptions = {},
  ) {
    this.limits = options.limits ?? DEFAULT_PACKAGE_LIMITS;
    this.hostKey = options.hostKey ?? currentHostKey();
    this.pluginRoot = options.pluginRoot ?? root;
  }

  /**
   * One staged copy (docs/plugin-protocol.md §1): the package is read once, into a private
   * staging folder (0700) and hashed as it is copied there; inspection, the sha256 check,
   * extraction and tarball() all read that copy, never `source` again.
   */
  async stage(source: string, expectedSha256?: string, bundle: BundleOptions = {}): Promise<StagedPackage> {
    const expected = expectedSha256 === undefined ? undefined : normalizeSha256(expectedSha256);
    const stat = await fs.stat(source).catch(() => undefined);
    if (!stat || !(stat.isFile() || stat.isDirectory())) {
      throw new InvalidPackageError([{ path: PACKAGE_PATH, message: `no package folder or .tgz file at ${source}` }]);
    }
    const dir = await this.makeStagingDir();
    try {
      if (stat.isFile()) {
        const copy = path.join(dir, STAGED_TARBALL);
        const sha256 = await copyFileHashing(source, copy, compressedCap(this.limits.archiveBytes));
        if (isZipHead(await readHead(copy))) return await this.stageBundleCopy(dir, copy, sha256, expected, bundle);
        return await this.stageTarballCopy(dir, copy, sha256, expected);
      }
      const content = path.join(dir, 'package');
      await fs.mkdir(content);
      await copyPackageDirectory(source, content, this.limits);
      const leaving = await linksLeaving(content);
      if (leaving.length > 0) throw new InvalidPackageError(leaving);
      const sha256 = await directoryDigest(content);
      this.checkSha256(sha256, expected);
      return await this.finishStaging(dir, content, sha256);
    } catch (error) {
      await fs.rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  /** The staged copy of a `.tgz`: judged header by header before anything is extracted from it. */
  private async stageTarballCopy(dir: string, copy: string, sha256: string, expected: string | undefined): Promise<StagedPackage> {
    await inspectTarball(copy, this.limits);
    this.checkSha256(sha256, expected);
    const content = path.join(dir, 'package');
    await fs.mkdir(content);
    await extractTarball(copy, content, this.limits);
    const packageRoot = await findPackageRoot(content);
    const leaving = await linksLeaving(packageRoot);
    if (leaving.length > 0) throw new InvalidPackageError(leaving);
    return this.finishStaging(dir, packageRoot, sha256, copy);
  }

  /**
   * The staged copy of an MCP Bundle (docs/mcp-servers.md, "Bundles"): unpacked, its
   * `manifest.json` mapped to the `manifest.yaml` written beside it, which the rest of staging
   * (and a replica unpacking the folder packed by tarball()) reads as any package's. Violations
   * of the mapped manifest name the `manifest.json` fields they came from.
   */
  private async stageBundleCopy(dir: string, copy: string, sha256: string, expected: string | undefined, options: BundleOptions): Promise<StagedPackage> {
    this.checkSha256(sha256, expected);
    const content = path.join(dir, 'package');
    await fs.mkdir(content);
    await extractZip(copy, content, this.limits);
    const mapping = mapBundleManifest(await readBundleManifest(content, this.limits.manifestBytes), options);
    if (!mapping.ok) throw new InvalidPackageError(mapping.violations);
    try {
      await fs.writeFile(path.join(content, MANIFEST_FILE), YAML.stringify(mapping.manifest), { mode: 0o644, flag: 'wx' });
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      throw new InvalidPackageError([
        { path: MANIFEST_FILE, message: "a bundle must not hold manifest.yaml at its root: that is where Toolport writes the plugin's manifest" },
      ]);
    }
    try {
      const staged = await this.finishStaging(dir, content, sha256);
      const warnings = [...mapping.warnings, ...(staged.manifest.warnings ?? []).map((w) => ({ ...w, path: mapping.fieldOf(w.path) }))];
      if (warnings.length > 0) staged.manifest.warnings = warnings;
      return staged;
    } catch (error) {
      if (!(error instanceof InvalidPackageError)) throw error;
      const named = (list: Violation[]) => list.map((violation) => ({ ...violation, path: mapping.fieldOf(violation.path) }));
      throw new InvalidPackageError(named(error.violations), [...mapping.warnings, ...named(error.warnings)]);
    }
  }

  private async finishStaging(dir: string, packageRoot: string, sha256: string, tarball?: string): Promise<StagedPackage> {
    const options = { schemas: this.schemas, toolportVersion: this.toolportVersion, maxBytes: this.limits.manifestBytes };
    const manifest = await readPackageManifest(packageRoot, options);
    await prepareExecutable(packageRoot, manifest, this.hostKey);
    const staged: StagedPackage = { manifest, sha256 };
    this.staged.set(staged, { dir, root: packageRoot, ...(tarball !== undefined ? { tarball } : {}) });
    return staged;
  }

  /**
   * Replaces a leftover folder of the same version (say, from a crash between commit and
   * saving the record); callers never commit over the version that is running. The seal is
   * made from the staged folder, whose files are the ones moved into place.
   */
  async commit(staged: StagedPackage): Promise<InstalledPackage> {
    const staging = this.staged.get(staged);
    if (!staging) throw new Error('commit() of a package that is not staged here (or was already committed or discarded)');
    this.staged.delete(staged);
    try {
      const { id, version } = staged.manifest;
      const target = this.versionDir(id, version);
      const seal = path.join(staging.dir, STAGED_SEAL);
      await fs.writeFile(seal, sealText(id, version, await readInstalledFiles(staging.root)), { mode: 0o400, flag: 'wx' });
      await fs.mkdir(path.dirname(target), { recursive: true });
      await fs.rm(target, { recursive: true, force: true });
      await fs.rm(this.sealPath(id, version), { force: true });
      await fs.rename(staging.root, target);
      await fs.rename(seal, this.sealPath(id, version));
      return this.locate(staged.manifest);
    } finally {
      await fs.rm(staging.dir, { recursive: true, force: true });
    }
  }

  async tarball(staged: StagedPackage): Promise<Buffer> {
    const staging = this.staged.get(staged);
    if (!staging) throw new Error('tarball() of a package that is not staged here');
    if (staging.tarball) return fs.readFile(staging.tarball);
    const chunks: Buffer[] = [];
    for await (const chunk of packTar({ gzip: true, cwd: staging.root, portable: true }, ['.'])) chunks.push(chunk as Buffer);
    return Buffer.concat(chunks);
  }

  async stageTarball(tgz: Buffer): Promise<StagedPackage> {
    const dir = await this.makeStagingDir();
    try {
      if (tgz.length > compressedCap(this.limits.archiveBytes)) {
        throw new InvalidPackageError([{ path: PACKAGE_PATH, message: `the package file is larger than ${compressedCap(this.limits.archiveBytes)} bytes` }]);
      }
      const copy = path.join(dir, STAGED_TARBALL);
      return await this.stageTarballCopy(dir, copy, await writeFileHashing(copy, tgz), undefined);
    } catch (error) {
      await fs.rm(dir, { recursive: true, force: true });
      throw error;
    }
  }

  async isInstalled(manifest: PluginManifest): Promise<boolean> {
    return (await fs.stat(path.join(this.versionDir(manifest.id, manifest.version), 'manifest.yaml')).catch(() => undefined)) !== undefined;
  }

  async discard(staged: StagedPackage): Promise<void> {
    const staging = this.staged.get(staged);
    this.staged.delete(staged);
    if (staging) await fs.rm(staging.dir, { recursive: true, force: true });
  }

  /** Renamed inside the plugin's own folder: same file system, and a start-up sweep removes a leftover. */
  async setAside(pluginId: string, version: string): Promise<SetAsideVersion> {
    const current = this.versionDir(pluginId, version);
    const currentSeal = this.sealPath(pluginId, version);
    const aside = path.join(this.pluginDir(pluginId), `.aside-${segment(version)}-${process.pid}-${Date.now()}`);
    const asideSeal = `${aside}-files`;
    await fs.rename(current, aside);
    await fs.rename(currentSeal, asideSeal).catch((error: unknown) => {
      if (!isMissing(error)) throw error;
    });
    return {
      restore: async () => {
        await fs.rm(current, { recursive: true, force: true });
        await fs.rm(currentSeal, { force: true });
        await fs.rename(aside, current);
        await fs.rename(asideSeal, currentSeal).catch((error: unknown) => {
          if (!isMissing(error)) throw error;
        });
      },
      drop: async () => {
        await fs.rm(aside, { recursive: true, force: true });
        await fs.rm(asideSeal, { force: true });
      },
    };
  }

  async removeVersion(pluginId: string, version: string): Promise<void> {
    await fs.rm(this.versionDir(pluginId, version), { recursive: true, force: true });
    await fs.rm(this.sealPath(pluginId, version), { force: true });
    await fs.rmdir(this.pluginDir(pluginId)).catch(() => undefined);
  }

  async pruneVersions(pluginId: string, keep: string[]): Promise<void> {
    const entries = await fs.readdir(this.pluginDir(pluginId)).catch(() => [] as string[]);
    for (const entry of entries) {
      if (!keep.includes(versionOfEntry(entry))) await fs.rm(path.join(this.pluginDir(pluginId), entry), { recursive: true, force: true });
    }
  }

  /**
   * Compares the version's files with its seal (docs/operations.md §4). A version committed
   * before seals were kept has none: it is sealed as it is at its first check.
   */
  async verify(manifest: PluginManifest): Promise<void> {
    const { id, version } = manifest;
    const dir = this.versionDir(id, version);
    const actual = await readInstalledFiles(dir).catch((error: unknown) => {
      if (isMissing(error)) throw new ToolportError('PLUGIN_START_FAILED', `the installed folder of ${id}@${version} is missing`);
      throw error;
    });
    let text: string;
    try {
      text = await fs.readFile(this.sealPath(id, version), 'utf8');
    } catch (error) {
      if (!isMissing(error)) throw error;
      await fs.writeFile(this.sealPath(id, version), sealText(id, version, actual), { mode: 0o400, flag: 'wx' });
      return;
    }
    let recorded;
    try {
      recorded = parseSeal(text, id, version);
    } catch (error) {
      throw new ToolportError('PLUGIN_START_FAILED', `the record of the installed files of ${id}@${version} cannot be read: ${(error as Error).message}`);
    }
    const difference = firstDifference(recorded, actual);
    if (difference !== null) throw new ToolportError('PLUGIN_START_FAILED', `${difference}; reinstall ${id} to run it`);
  }

  locate(manifest: PluginManifest): InstalledPackage {
    const installDir = this.versionDir(manifest.id, manifest.version);
    const runtime = manifest.runtime;
    if (runtime?.type === 'mcp-stdio') {
      return { installDir, executable: isBareInterpreter(runtime.command) ? runtime.command : path.join(installDir, runtime.command), args: runtime.args };
    }
    const found = executableFor(manifest, this.hostKey);
    if (!found) {
      throw new InvalidPackageError([{ path: 'runtime.executables', message: `no executable for this host (${this.hostKey}) and no "any" entry` }]);
    }
    return { installDir, executable: path.join(installDir, found.relative), args: manifest.runtime?.args ?? [] };
  }

  async dataDir(pluginId: string): Promise<string> {
    const dir = path.join(this.pluginRoot, 'plugin-data', segment(pluginId));
    await fs.mkdir(dir, { recursive: true });
    return dir;
  }

  async removePlugin(pluginId: string): Promise<void> {
    await fs.rm(this.pluginDir(pluginId), { recursive: true, force: true });
    await fs.rm(path.join(this.pluginRoot, 'plugin-data', segment(pluginId)), { recursive: true, force: true });
  }

  async sweep(installed: ReadonlyMap<string, string>): Promise<string[]> {
    const removed = new Set<string>();
    const plugins = path.join(this.pluginRoot, 'plugins');
    for (const pluginId of await fs.readdir(plugins).catch(() => [] as string[])) {
      const keep = installed.get(pluginId);
      if (keep === undefined) {
        await fs.rm(path.join(plugins, pluginId), { recursive: true, force: true });
        removed.add(pluginId);
        continue;
      }
      for (const entry of await fs.readdir(path.join(plugins, pluginId)).catch(() => [] as string[])) {
        if (versionOfEntry(entry) === keep) continue;
        await fs.rm(path.join(plugins, pluginId, entry), { recursive: true, force: true });
        removed.add(`${pluginId}@${versionOfEntry(entry)}`);
      }
    }
    const data = path.join(this.pluginRoot, 'plugin-data');
    for (const pluginId of await fs.readdir(data).catch(() => [] as string[])) {
      if (installed.has(pluginId)) continue;
      await fs.rm(path.join(data, pluginId), { recursive: true, force: true });
      removed.add(pluginId);
    }
    return [...removed].sort();
  }

  /**
   * Removes staging folders a crashed process left behind. Call it at backend start, while
   * holding the data-dir lock (nothing else stages then); not part of the port.
   */
  async removeStaleStaging(): Promise<void> {
    const tmp = path.join(this.root, 'tmp');
    const names = await fs.readdir(tmp).catch(() => [] as string[]);
    for (const name of names) {
      if (name.startsWith('stage-')) await fs.rm(path.join(tmp, name), { recursive: true, force: true });
    }
  }

  private checkSha256(actual: string, expected: string | undefined): void {
    if (expected !== undefined && actual !== expected) {
      throw new ToolportError('CHECKSUM_MISMATCH', `package sha256 is ${actual}, expected ${expected}`, { expected, actual });
    }
  }

  private async makeStagingDir(): Promise<string> {
    const tmp = path.join(this.root, 'tmp');
    await fs.mkdir(tmp, { recursive: true, mode: 0o700 });
    return fs.mkdtemp(path.join(tmp, 'stage-'));
  }

  private pluginDir(pluginId: string): string {
    return path.join(this.pluginRoot, 'plugins', segment(pluginId));
  }

  private versionDir(pluginId: string, version: string): string {
    return path.join(this.pluginDir(pluginId), segment(version));
  }

  private sealPath(pluginId: string, version: string): string {
    return path.join(this.pluginDir(pluginId), `${SEAL_PREFIX}${segment(version)}`);
  }
}
