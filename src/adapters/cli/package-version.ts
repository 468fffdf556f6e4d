import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The version in package.json (src/ and dist/ sit at the same depth below the root). */
export function readPackageVersion(): string {
  const raw = readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8');
  return (JSON.parse(raw) as { version: string }).version;
}
