/** A package as a store keeps it: its bytes are found by the digest its record names. */
export interface VaultedPackage {
  sha256: string;
  pluginId: string;
  version: string;
}

/**
 * Package bytes kept in a store shared by replicas, so a replica that did not receive an
 * install or upgrade can unpack the same version. Rejects when the store cannot be reached.
 */
export abstract class PackageVault {
  /** Keeps `tgz` under `pkg.sha256` (keeping it again replaces nothing); answers whether this call stored it. */
  abstract keep(pkg: VaultedPackage, tgz: Buffer): Promise<boolean>;
  /** Removes the bytes kept under `sha256` unless a plugin record names them. */
  abstract forget(sha256: string): Promise<void>;
  /** The bytes kept under `sha256`, or undefined. */
  abstract fetch(sha256: string): Promise<Buffer | undefined>;
  /** Removes the bytes no plugin record names any more. */
  abstract prune(): Promise<void>;
}
