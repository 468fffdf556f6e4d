import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { REPO_ROOT } from '../support/processes/toolport-paths';

function filesUnder(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path) : [path];
  });
}

/** The Python example ships generated stubs; they must be what proto/ generates today. */
describe("the Python example's committed stubs", () => {
  it('match a fresh generation from proto/ (node scripts/python-stubs.js)', () => {
    const out = mkdtempSync(join(tmpdir(), 'toolport-pystubs-'));
    try {
      execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'python-stubs.js'), out], { stdio: 'pipe' });
      const committed = join(REPO_ROOT, 'examples', 'plugins', 'greeter-py', 'stubs');
      const fresh = filesUnder(out)
        .map((path) => relative(out, path))
        .sort();
      expect(
        filesUnder(committed)
          .map((path) => relative(committed, path))
          .sort(),
      ).toEqual(fresh);
      for (const name of fresh) expect(readFileSync(join(committed, name), 'utf8')).toBe(readFileSync(join(out, name), 'utf8'));
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
