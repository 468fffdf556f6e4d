import { LIMITS } from '../../domain/limits';

/** The size caps a package must respect; tests lower them to stay fast. */
export interface PackageLimits {
  manifestBytes: number;
  unpackedBytes: number;
  /** Files, folders and links; guards against a package of millions of empty files. */
  entries: number;
  /**
   * The decompressed tar stream: the unpacked bytes plus room for every entry's header,
   * long-name header and block padding. Decompression stops at the first byte over.
   */
  archiveBytes: number;
}

/** Header, long-name header and padding an entry may add to the tar stream. */
const ENTRY_OVERHEAD_BYTES = 2048;

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = packageLimits({
  manifestBytes: LIMITS.manifestBytes,
  unpackedBytes: LIMITS.packageUnpackedBytes,
  entries: 100_000,
});

/** Limits with the archive cap that goes with their unpacked bytes and entries. */
export function packageLimits(limits: Omit<PackageLimits, 'archiveBytes'>): PackageLimits {
  return { ...limits, archiveBytes: limits.unpackedBytes + limits.entries * ENTRY_OVERHEAD_BYTES };
}

/** The path a violation about the package as a whole is reported under. */
export const PACKAGE_PATH = '(package)';
