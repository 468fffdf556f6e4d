import { ToolportError } from '../../domain/errors';
import type { PluginRecord } from '../../domain/plugin-record';
import type { Logger } from '../ports/logger';
import { PackageSharing, type KeptPackage } from '../ports/package-sharing';
import type { InstalledPackages } from '../ports/installed-packages';
import type { PackageStaging, StagedPackage } from '../ports/package-staging';
import type { PackageVault } from '../ports/package-vault';
import { errorMessage } from '../shared/error-code';

/** Packages across replicas through the store's vault (docs/operations.md §10). */
export class VaultPackageSharing extends PackageSharing {
  constructor(
    private readonly vault: PackageVault,
    private readonly packages: PackageStaging,
    private readonly installed: InstalledPackages,
    private readonly logger: Logger,
  ) {
    super();
  }

  async keep(staged: StagedPackage): Promise<KeptPackage> {
    const { id, version } = staged.manifest;
    const { sha256 } = staged;
    const stored = await this.vault.keep({ sha256, pluginId: id, version }, await this.packages.tarball(staged));
    // Bytes that were there already (another replica's install of the same package) stay theirs.
    if (!stored) return { forget: async () => {} };
    return {
      forget: () =>
        this.vault
          .forget(sha256)
          .catch((error: unknown) => this.logger.warn({ plugin_id: id, version, reason: errorMessage(error) }, 'could not forget a kept package')),
    };
  }

  async prune(): Promise<void> {
    await this.vault.prune().catch((error: unknown) => this.logger.warn({ reason: errorMessage(error) }, 'could not prune kept packages'));
  }

  async ensure(record: PluginRecord, fresh: boolean): Promise<void> {
    const { packages } = this;
    if (!fresh && (await this.installed.isInstalled(record.manifest))) return;
    const tgz = await this.vault.fetch(record.package_sha256);
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
  }
}
