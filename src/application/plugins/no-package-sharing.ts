import { PackageSharing } from '../ports/package-sharing';

/** Package sharing's null object: a backend alone keeps its packages in its own data dir only. */
export class NoPackageSharing extends PackageSharing {
  async keep(): Promise<void> {}
  async prune(): Promise<void> {}
  async ensure(): Promise<void> {}
}
