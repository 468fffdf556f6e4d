import { lstatSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The forms a leaked secret would take in bytes: as it is, and base64'd. */
function needles(secret: string): Buffer[] {
  return [Buffer.from(secret, 'utf8'), Buffer.from(Buffer.from(secret, 'utf8').toString('base64').replace(/=+$/, ''), 'utf8')];
}

/** Every file under `dir` (recursively, SQLite files and their WAL included) whose bytes hold `secret`. */
export function filesHolding(dir: string, secret: string): string[] {
  const found: string[] = [];
  const walk = (folder: string): void => {
    for (const name of readdirSync(folder)) {
      const path = join(folder, name);
      const stat = lstatSync(path);
      if (stat.isDirectory()) walk(path);
      else if (stat.isFile() && needles(secret).some((needle) => readFileSync(path).includes(needle))) found.push(path);
    }
  };
  walk(dir);
  return found;
}

/** Every process on the machine whose environment or command line holds `secret` (root reads them all). */
export function processesHolding(secret: string): Array<{ pid: number; where: 'environ' | 'cmdline' }> {
  const found: Array<{ pid: number; where: 'environ' | 'cmdline' }> = [];
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    for (const where of ['environ', 'cmdline'] as const) {
      try {
        if (needles(secret).some((needle) => readFileSync(`/proc/${name}/${where}`).includes(needle))) found.push({ pid: Number(name), where });
      } catch {
        // gone, or a kernel thread
      }
    }
  }
  return found;
}
