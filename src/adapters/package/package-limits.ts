import { LIMITS } from '../../domain/limits';

/** The size caps a package must respect; tests lower them to stay fast. */
export interface PackageLimits {
  manifestBytes: number;
  unpackedBytes: number;
  /** Files, folders and links; guards against a package of millions of empty files. */
  entries: number;
}

export const DEFAULT_PACKAGE_LIMITS: PackageLimits = {
  manifestBytes: LIMITS.manifestBytes,
  unpackedBytes: LIMITS.packageUnpackedBytes,
  entries: 100_000,
};

/** The path a violation about the package as a whole is reported under. */
export const PACKAGE_PATH = '(package)';
