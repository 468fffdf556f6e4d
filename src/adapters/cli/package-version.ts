import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Written in by the build of the standalone agentctl file (scripts/build-agentctl.js), which
 * has no package.json beside it; absent everywhere else.
 */
declare const TOOLPORT_BUNDLED_VERSION: string | undefined;

/** The version in package.json (src/ and dist/ sit at the same depth below the root). */
export function readPackageVersion(): string {
  if (typeof TOOLPORT_BUNDLED_VERSION === 'string') return TOOLPORT_BUNDLED_VERSION;
  const raw = readFileSync(join(__dirname, '..', '..', '..', 'package.json'), 'utf8');
  return (JSON.parse(raw) as { version: string }).version;
}
