import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/** The tracked text files a clone carries: what a newcomer reads, and what its comments cite. */
function trackedFiles(): string[] {
  const listed = execFileSync('git', ['ls-files', '-z'], { cwd: root, encoding: 'utf8' }).split('\0');
  return listed.filter(
    (file) => /\.(ts|tsx|js|cjs|mjs|py|go|md|sh|yaml|yml|json|proto)$/.test(file) && !file.endsWith('package-lock.json') && existsSync(join(root, file)),
  );
}

/** The numbered headings (`## 4. The plugin process`) of one docs page. */
function sectionNumbers(page: string): Set<string> {
  const numbers = new Set<string>();
  for (const line of readFileSync(join(root, page), 'utf8').split('\n')) {
    const heading = /^#{2,3} (\d+)\. /.exec(line);
    if (heading) numbers.add(heading[1]);
  }
  return numbers;
}

/**
 * A clone has nothing outside itself: the README and docs/ carry the reference, and source
 * comments cite docs/ pages by their own numbering (docs/README.md).
 */
describe('the project stands on its own', () => {
  const files = trackedFiles();
  const ownPath = 'test/architecture/self-contained.test.ts';

  it('cites no document outside the clone', () => {
    const outside = /\bCONTRACT\b|(STYLE|TOOLCHAIN)\.md/;
    const offending = files
      .filter((file) => file !== ownPath)
      .flatMap((file) =>
        readFileSync(join(root, file), 'utf8')
          .split('\n')
          .flatMap((line, index) => (outside.test(line) ? [`${file}:${index + 1}: ${line.trim()}`] : [])),
      );
    expect(offending).toEqual([]);
  });

  it('cites only docs pages and numbered sections that exist', () => {
    const citation = /\bdocs\/([a-z0-9-]+(?:\/[a-z0-9-]+)*\.md)(?: §(\d+))?/g;
    const sections = new Map<string, Set<string>>();
    const broken: string[] = [];
    for (const file of files) {
      if (file === ownPath) continue;
      const lines = readFileSync(join(root, file), 'utf8').split('\n');
      lines.forEach((line, index) => {
        for (const match of line.matchAll(citation)) {
          const page = `docs/${match[1]}`;
          if (!existsSync(join(root, page))) {
            broken.push(`${file}:${index + 1}: ${page} does not exist`);
            continue;
          }
          if (match[2] === undefined) continue;
          if (!sections.has(page)) sections.set(page, sectionNumbers(page));
          if (!sections.get(page)!.has(match[2])) broken.push(`${file}:${index + 1}: ${page} has no §${match[2]}`);
        }
      });
    }
    expect(broken).toEqual([]);
  });
});
