import { join } from 'node:path';

/**
 * The absolute path of this Toolport's `bin/toolport` (src/ and dist/ sit at the same depth
 * below the root): what a configuration another program runs names, since that program's
 * PATH may not hold `toolport`.
 */
export function toolportBin(): string {
  return join(__dirname, '..', '..', '..', 'bin', 'toolport');
}
