import type { InstalledPackages } from '../../src/application/ports/installed-packages';
import type { PackageStaging } from '../../src/application/ports/package-staging';
import { InvalidPackageError, ToolportError } from '../../src/domain/errors';

/**
 * One package adapter under test, with what a test needs to set the scene that the ports
 * themselves cannot: packages to read, and the installed files as something else on the disk
 * would see and change them. Every package has `manifest.yaml`, its executable `bin/plugin` and
 * a `README.md` holding the marker it was written with, so a test can tell two packages of the
 * same version apart.
 */
export interface PackagesUnderTest {
  source: PackageStaging & InstalledPackages;
  /** Writes a valid package of `id@version` (one tool, `run`) and answers where it is. */
  writePackage(id: string, version: string, marker?: string): Promise<string>;
  /** Writes a package with no manifest and answers where it is. */
  writeInvalid(): Promise<string>;
  /** The content of a file of an installed version, or undefined when there is none. */
  readInstalled(id: string, version: string, file: string): Promise<string | undefined>;
  /** Writes a file of an installed version, or removes it (`undefined`), behind the adapter's back. */
  writeInstalled(id: string, version: string, file: string, content: string | undefined): Promise<void>;
  /** Whether the plugin's data folder exists. */
  hasDataDir(id: string): Promise<boolean>;
  cleanup(): void | Promise<void>;
}

export type PackagesFactory = () => PackagesUnderTest | Promise<PackagesUnderTest>;

/** The version most tests use. */
const V1 = '1.0.0';

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected a rejection');
    },
    (error: unknown) => error,
  );
}

/**
 * The contract of the package ports (PackageStaging and InstalledPackages): what a user relies
 * on, whichever adapter holds the packages. A test file runs it over every adapter:
 * `describePackageSourceContract([['in-memory', () => ({ source: new InMemoryPackageSource(), … })]])`.
 */
export function describePackageSourceContract(rows: Array<[string, PackagesFactory]>): void {
  describe.each(rows)('PackageStaging and InstalledPackages contract: %s', (_name, factory) => {
    let under: PackagesUnderTest;
    let source: PackageStaging & InstalledPackages;
    beforeEach(async () => {
      under = await factory();
      source = under.source;
    });
    afterEach(async () => {
      await under.cleanup();
    });

    /** Stages and commits `id@version` and answers its manifest. */
    async function install(id: string, version = V1, marker?: string) {
      const staged = await source.stage(await under.writePackage(id, version, marker));
      await source.commit(staged);
      return staged.manifest;
    }

    describe('staging', () => {
      it('reads a valid package into its manifest and a sha256, the same for the same package and another for another', async () => {
        const path = await under.writePackage('acme.tools', V1, 'one');
        const first = await source.stage(path);
        expect(first.manifest).toMatchObject({ id: 'acme.tools', version: V1 });
        expect(first.manifest.agent_tools.map((tool) => tool.name)).toEqual(['run']);
        expect(first.sha256).toMatch(/^[0-9a-f]{64}$/);
        const again = await source.stage(path);
        expect(again.sha256).toBe(first.sha256);
        const other = await source.stage(await under.writePackage('acme.other', V1, 'two'));
        expect(other.sha256).not.toBe(first.sha256);
        for (const staged of [first, again, other]) await source.discard(staged);
      });

      it('accepts the expected sha256 in any case, refuses another with CHECKSUM_MISMATCH naming both, and a malformed one with BAD_REQUEST', async () => {
        const path = await under.writePackage('acme.tools', V1);
        const { sha256 } = await source.stage(path);
        await source.discard(await source.stage(path, sha256.toUpperCase()));
        const wrong = sha256.startsWith('0') ? `1${sha256.slice(1)}` : `0${sha256.slice(1)}`;
        const mismatch = await rejection(source.stage(path, wrong));
        expect(mismatch).toBeInstanceOf(ToolportError);
        expect(mismatch).toMatchObject({ code: 'CHECKSUM_MISMATCH', message: expect.stringContaining(sha256) });
        expect((mismatch as Error).message).toContain(wrong);
        expect(await rejection(source.stage(path, 'not-a-digest'))).toMatchObject({ code: 'BAD_REQUEST' });
      });

      it('refuses a path with no package and a package that breaks the rules with INVALID_PACKAGE', async () => {
        const missing = await rejection(source.stage('/no/such/package'));
        expect(missing).toBeInstanceOf(InvalidPackageError);
        expect(missing).toMatchObject({ code: 'INVALID_PACKAGE' });
        const invalid = await rejection(source.stage(await under.writeInvalid()));
        expect(invalid).toBeInstanceOf(InvalidPackageError);
        expect((invalid as InvalidPackageError).violations.length).toBeGreaterThan(0);
      });

      it('installs nothing until commit, and a discarded package can no longer be committed', async () => {
        const staged = await source.stage(await under.writePackage('acme.tools', V1));
        expect(await source.isInstalled(staged.manifest)).toBe(false);
        await source.discard(staged);
        expect(await source.isInstalled(staged.manifest)).toBe(false);
        await expect(source.commit(staged)).rejects.toThrow();
        expect(await source.isInstalled(staged.manifest)).toBe(false);
      });

      it('passes a package to another replica as bytes: staged from them, it has the same manifest and files', async () => {
        const staged = await source.stage(await under.writePackage('acme.tools', V1, 'shared'));
        const bytes = await source.tarball(staged);
        await source.discard(staged);
        const copy = await source.stageTarball(bytes);
        expect(copy.manifest).toEqual(staged.manifest);
        expect(copy.sha256).toMatch(/^[0-9a-f]{64}$/);
        await source.commit(copy);
        expect(await under.readInstalled('acme.tools', V1, 'README.md')).toBe('shared');
        await source.verify(copy.manifest);
        const garbage = await rejection(source.stageTarball(Buffer.from('not a package')));
        expect(garbage).toBeInstanceOf(InvalidPackageError);
      });
    });

    describe('installed versions', () => {
      it('commits a staged package once, where locate says, with its executable inside the version folder', async () => {
        const staged = await source.stage(await under.writePackage('acme.tools', V1, 'mine'));
        const installed = await source.commit(staged);
        expect(installed).toEqual(source.locate(staged.manifest));
        expect(installed.executable.startsWith(`${installed.installDir}/`)).toBe(true);
        expect(installed.executable.endsWith('/bin/plugin')).toBe(true);
        expect(await source.isInstalled(staged.manifest)).toBe(true);
        expect(await source.isInstalled({ ...staged.manifest, version: '9.9.9' })).toBe(false);
        expect(await under.readInstalled('acme.tools', V1, 'README.md')).toBe('mine');
        await expect(source.commit(staged)).rejects.toThrow();
      });

      it('verifies an installed version as committed, and names the file changed, added or removed since', async () => {
        const manifest = await install('acme.tools');
        await source.verify(manifest);
        await source.verify(manifest);

        await under.writeInstalled('acme.tools', V1, 'README.md', 'changed');
        const changed = await rejection(source.verify(manifest));
        expect(changed).toBeInstanceOf(ToolportError);
        expect(changed).toMatchObject({ code: 'PLUGIN_START_FAILED', message: expect.stringContaining('"README.md" changed') });

        await source.commit(await source.stage(await under.writePackage('acme.tools', V1)));
        await source.verify(manifest);
        await under.writeInstalled('acme.tools', V1, 'bin/extra.js', 'planted');
        expect(await rejection(source.verify(manifest))).toMatchObject({ message: expect.stringContaining('"bin/extra.js" was added') });

        await source.commit(await source.stage(await under.writePackage('acme.tools', V1)));
        await under.writeInstalled('acme.tools', V1, 'README.md', undefined);
        expect(await rejection(source.verify(manifest))).toMatchObject({ message: expect.stringContaining('"README.md" was removed') });

        expect(await rejection(source.verify({ ...manifest, version: '9.9.9' }))).toMatchObject({ code: 'PLUGIN_START_FAILED' });
      });

      it('sets a version aside so the same version can be committed again; restore brings the old one back, sealed as it was', async () => {
        const manifest = await install('acme.tools', V1, 'old');
        const aside = await source.setAside('acme.tools', V1);
        expect(await source.isInstalled(manifest)).toBe(false);
        await install('acme.tools', V1, 'new');
        expect(await under.readInstalled('acme.tools', V1, 'README.md')).toBe('new');
        await source.verify(manifest);
        await aside.restore();
        expect(await under.readInstalled('acme.tools', V1, 'README.md')).toBe('old');
        // Its own record came back with it: the files it had then are the ones that pass.
        await under.writeInstalled('acme.tools', V1, 'README.md', 'new');
        expect(await rejection(source.verify(manifest))).toMatchObject({ message: expect.stringContaining('"README.md" changed') });
        await under.writeInstalled('acme.tools', V1, 'README.md', 'old');
        await source.verify(manifest);
      });

      it('drops a set-aside version and keeps the one committed after it', async () => {
        const manifest = await install('acme.tools', V1, 'old');
        const aside = await source.setAside('acme.tools', V1);
        await install('acme.tools', V1, 'new');
        await aside.drop();
        expect(await under.readInstalled('acme.tools', V1, 'README.md')).toBe('new');
        await under.writeInstalled('acme.tools', V1, 'README.md', 'old');
        expect(await rejection(source.verify(manifest))).toMatchObject({ message: expect.stringContaining('"README.md" changed') });
        await under.writeInstalled('acme.tools', V1, 'README.md', 'new');
        await source.verify(manifest);
      });

      it('removes one version, prunes all but the versions named, and keeps each kept one verifiable', async () => {
        const versions = ['1.0.0', '1.1.0', '1.2.0', '2.0.0'];
        const manifests = [];
        for (const version of versions) manifests.push(await install('acme.tools', version));
        await source.removeVersion('acme.tools', '1.0.0');
        expect(await source.isInstalled(manifests[0]!)).toBe(false);
        expect(await source.isInstalled(manifests[1]!)).toBe(true);

        await source.pruneVersions('acme.tools', ['2.0.0', '1.1.0']);
        expect(await Promise.all(manifests.map((m) => source.isInstalled(m)))).toEqual([false, true, false, true]);
        await source.verify(manifests[1]!);
        await source.verify(manifests[3]!);
      });

      it('gives a plugin one data folder, kept across versions, and removes it with every version on removePlugin', async () => {
        const first = await source.dataDir('acme.tools');
        expect(await source.dataDir('acme.tools')).toBe(first);
        expect(await source.dataDir('acme.other')).not.toBe(first);
        expect(await under.hasDataDir('acme.tools')).toBe(true);
        const one = await install('acme.tools', '1.0.0');
        const two = await install('acme.tools', '2.0.0');
        const other = await install('acme.other', '1.0.0');

        await source.removePlugin('acme.tools');
        expect(await source.isInstalled(one)).toBe(false);
        expect(await source.isInstalled(two)).toBe(false);
        expect(await under.hasDataDir('acme.tools')).toBe(false);
        expect(await source.isInstalled(other)).toBe(true);
        expect(await under.hasDataDir('acme.other')).toBe(true);
        await source.removePlugin('never.installed');
      });

      it('sweeps what no record names, answers it sorted, and keeps what records name', async () => {
        const kept = await install('kept.plugin', '2.0.0');
        const older = await install('kept.plugin', '1.0.0');
        const gone = await install('gone.plugin', '1.0.0');
        await source.dataDir('kept.plugin');
        await source.dataDir('gone.plugin');
        await source.dataDir('orphan.data');

        const removed = await source.sweep(new Map([['kept.plugin', '2.0.0']]));
        expect(removed).toEqual(['gone.plugin', 'kept.plugin@1.0.0', 'orphan.data']);
        expect(await source.isInstalled(kept)).toBe(true);
        expect(await source.isInstalled(older)).toBe(false);
        expect(await source.isInstalled(gone)).toBe(false);
        expect(await under.hasDataDir('kept.plugin')).toBe(true);
        expect(await under.hasDataDir('gone.plugin')).toBe(false);
        await source.verify(kept);
        expect(await source.sweep(new Map([['kept.plugin', '2.0.0']]))).toEqual([]);
      });
    });
  });
}
