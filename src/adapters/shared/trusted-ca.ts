import { readFileSync } from 'node:fs';

/** A `--ca` / `TOOLPORT_CA` file that cannot be used; the CLI exits 2 with this message. */
export class CaFileError extends Error {
  /** The CLI's usage exit code. */
  readonly exitCode = 2;

  constructor(message: string) {
    super(message);
    this.name = 'CaFileError';
  }
}

/**
 * The PEM certificates a client trusts besides the system's for a backend on https: the file
 * named by `--ca` (given as `flag`), else by `TOOLPORT_CA`; undefined when neither is set.
 */
export function readTrustedCa(flag: string | undefined, env: NodeJS.ProcessEnv): string | undefined {
  const [path, name] = flag ? [flag, '--ca'] : [env.TOOLPORT_CA, 'TOOLPORT_CA'];
  if (!path) return undefined;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new CaFileError(`${name}: cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? 'unreadable'})`);
  }
  if (!text.includes('-----BEGIN CERTIFICATE-----')) throw new CaFileError(`${name}: ${path} holds no PEM certificate`);
  return text;
}

const UNTRUSTED = new Set([
  'SELF_SIGNED_CERT_IN_CHAIN',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'CERT_UNTRUSTED',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'ERR_TLS_CERT_ALTNAME_INVALID',
]);

/** One line saying why a TLS connection to `url` failed, when `code` is a certificate problem. */
export function certificateProblem(code: string | undefined, url: string): string | undefined {
  if (code === undefined || !UNTRUSTED.has(code)) return undefined;
  const why =
    code === 'ERR_TLS_CERT_ALTNAME_INVALID'
      ? 'its certificate does not name this host'
      : code === 'CERT_HAS_EXPIRED'
        ? 'its certificate has expired'
        : 'its certificate is not trusted';
  return `the backend at ${url} cannot be trusted: ${why} (${code}); pass --ca <file> or set TOOLPORT_CA to the CA that issued it`;
}
