import { randomBytes } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `<data-dir>/replica-id`: this data dir's replica id (docs/operations.md §10), made once and kept, so
 * a restarted replica is known as the same one. Call it while holding the data-dir lock.
 */
export function replicaIdFor(dataDir: string): string {
  const path = join(dataDir, 'replica-id');
  try {
    const kept = readFileSync(path, 'utf8').trim();
    if (/^r-[0-9a-f]{12}$/.test(kept)) return kept;
  } catch {
    // none yet: made below
  }
  const id = `r-${randomBytes(6).toString('hex')}`;
  writeFileSync(path, `${id}\n`, { mode: 0o600 });
  return id;
}
