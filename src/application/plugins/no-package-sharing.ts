import { PackageSharing, type KeptPackage } from '../ports/package-sharing';

const NOTHING_KEPT: KeptPackage = { forget: async () => {} };

/** Package sharing's null object: a backend alone keeps its packages in its own data dir only. */
export class NoPackageSharing extends PackageSharing {
  async keep(): Promise<KeptPackage> {
    return NOTHING_KEPT;
  }
  async prune(): Promise<void> {}
  async ensure(): Promise<void> {}
}
