import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** Debian's PostgreSQL 15 server programs (`apt-get install postgresql`). */
export const POSTGRES_BIN = '/usr/lib/postgresql/15/bin';

/** The account initdb and the server run as: both refuse to run as root. */
export interface PostgresAccount {
  uid: number;
  gid: number;
}

/** The `postgres` account, and a clear failure naming what to install when it or the programs are missing. */
export function postgresAccount(): PostgresAccount {
  for (const program of ['initdb', 'postgres']) {
    if (!existsSync(join(POSTGRES_BIN, program))) {
      throw new Error(`${join(POSTGRES_BIN, program)} is missing: install Debian's postgresql package (apt-get install -y postgresql)`);
    }
  }
  const entry = readFileSync('/etc/passwd', 'utf8')
    .split('\n')
    .map((line) => line.split(':'))
    .find((fields) => fields[0] === 'postgres');
  if (!entry) throw new Error("no postgres account: install Debian's postgresql package (apt-get install -y postgresql)");
  return { uid: Number(entry[2]), gid: Number(entry[3]) };
}
