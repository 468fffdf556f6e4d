import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export interface PrivateCa {
  /** The CA certificate clients are told to trust (`--ca`). */
  caFile: string;
  /** The backend's chain: its certificate, then the CA's (what `--tls-cert` takes). */
  chainFile: string;
  keyFile: string;
  /** A certificate for the same names from another CA nobody trusts. */
  strangerChainFile: string;
  strangerKeyFile: string;
}

function openssl(dir: string, args: string[]): void {
  execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
}

/** A CA and a server certificate it issued, for 127.0.0.1 and localhost, made with openssl in `dir`. */
function issue(dir: string, name: string): { ca: string; chain: string; key: string } {
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  openssl(dir, [
    'req',
    '-x509',
    ...ec,
    '-keyout',
    `${name}-ca.key`,
    '-out',
    `${name}-ca.pem`,
    '-days',
    '2',
    '-subj',
    `/CN=${name} test CA`,
    '-addext',
    'basicConstraints=critical,CA:TRUE',
    '-addext',
    'keyUsage=critical,keyCertSign,cRLSign',
  ]);
  openssl(dir, ['req', ...ec, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', '/CN=127.0.0.1']);
  writeFileSync(join(dir, `${name}.ext`), 'subjectAltName=IP:127.0.0.1,DNS:localhost\nextendedKeyUsage=serverAuth\nbasicConstraints=CA:FALSE\n');
  openssl(dir, [
    'x509',
    '-req',
    '-in',
    `${name}.csr`,
    '-CA',
    `${name}-ca.pem`,
    '-CAkey',
    `${name}-ca.key`,
    '-CAcreateserial',
    '-out',
    `${name}.pem`,
    '-days',
    '2',
    '-extfile',
    `${name}.ext`,
  ]);
  const chain = join(dir, `${name}-chain.pem`);
  writeFileSync(chain, readFileSync(join(dir, `${name}.pem`), 'utf8') + readFileSync(join(dir, `${name}-ca.pem`), 'utf8'), { mode: 0o600 });
  return { ca: join(dir, `${name}-ca.pem`), chain, key: join(dir, `${name}.key`) };
}

/** A private CA with a backend certificate, and a stranger's certificate for the same names. */
export function makePrivateCa(dir: string): PrivateCa {
  const ours = issue(dir, 'toolport');
  const stranger = issue(dir, 'stranger');
  return { caFile: ours.ca, chainFile: ours.chain, keyFile: ours.key, strangerChainFile: stranger.chain, strangerKeyFile: stranger.key };
}
