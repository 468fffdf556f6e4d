import type { Pool } from 'pg';
import { PackageVault, type VaultedPackage } from '../../application/ports/package-vault';

/** Package bytes in the `packages` table of a PostgreSQL store, on the store's pool. */
export class PostgresPackageVault extends PackageVault {
  constructor(private readonly pool: Pool) {
    super();
  }

  override async keep(pkg: VaultedPackage, tgz: Buffer): Promise<boolean> {
    const { rowCount } = await this.pool.query(
      `INSERT INTO packages (sha256, plugin_id, version, size_bytes, tgz, stored_at) VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (sha256) DO NOTHING`,
      [pkg.sha256, pkg.pluginId, pkg.version, tgz.length, tgz, new Date().toISOString()],
    );
    return rowCount === 1;
  }

  override async forget(sha256: string): Promise<void> {
    await this.pool.query('DELETE FROM packages WHERE sha256 = $1 AND sha256 NOT IN (SELECT package_sha256 FROM plugins)', [sha256]);
  }

  override async fetch(sha256: string): Promise<Buffer | undefined> {
    const { rows } = await this.pool.query('SELECT tgz FROM packages WHERE sha256 = $1', [sha256]);
    return rows[0]?.tgz as Buffer | undefined;
  }

  override async prune(): Promise<void> {
    await this.pool.query('DELETE FROM packages WHERE sha256 NOT IN (SELECT package_sha256 FROM plugins)');
  }
}
