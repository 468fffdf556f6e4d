import { ToolportError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { StagedPackage } from '../ports/package-source';
import { errorMessage } from '../shared/error-code';
import type { PluginLifecycleDeps } from './plugin-lifecycle-deps';

/**
 * Packages across replicas: the receiving replica keeps the bytes of what it installs in the
 * store's vault, and a replica that lacks the version a record names unpacks it from there.
 * Without a vault (one backend on its own data dir) both do nothing.
 */
export const installedCopy = {
  /** Keeps the staged package's bytes under its digest, before its record is committed. */
  async keep(deps: Pick<PluginLifecycleDeps, 'packages' | 'vault'>, staged: StagedPackage): Promise<void> {
    if (!deps.vault) return;
    const { id, version } = staged.manifest;
    await deps.vault.keep({ sha256: staged.sha256, pluginId: id, version }, await deps.packages.tarball(staged));
  },

  /** Drops kept bytes no record names any more (after an upgrade or an uninstall); a failure only waits for the next one. */
  async prune(deps: Pick<PluginLifecycleDeps, 'vault' | 'logger'>): Promise<void> {
    await deps.vault?.prune().catch((error: unknown) => deps.logger.warn({ reason: errorMessage(error) }, 'could not prune kept packages'));
  },

  /**
   * Makes sure the record's version has its folder here, unpacking it from the vault if not,
   * or always when `fresh` (the folder may hold other bytes of the same version: a reinstall
   * through another replica). No process may be running from that folder then.
   */
  async ensure(deps: Pick<PluginLifecycleDeps, 'packages' | 'vault'>, record: PluginRecord, fresh = false): Promise<void> {
    const { packages, vault } = deps;
    if (!vault || (!fresh && (await packages.isInstalled(record.manifest)))) return;
    const tgz = await vault.fetch(record.package_sha256);
    if (!tgz) throw new ToolportError('NOT_FOUND', `the store keeps no package for ${record.id}@${record.version}`);
    const staged = await packages.stageTarball(tgz);
    if (staged.manifest.id !== record.id || staged.manifest.version !== record.version) {
      await packages.discard(staged);
      throw new ToolportError(
        'CHECKSUM_MISMATCH',
        `the package kept for ${record.id}@${record.version} holds ${staged.manifest.id}@${staged.manifest.version}`,
      );
    }
    await packages.commit(staged);
  },
};
