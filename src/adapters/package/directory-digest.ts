import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import { hashBuffer, sha256OfFile } from './file-sha256';
import { walkTree } from './package-tree';

/**
 * docs/operations.md `package_sha256` of a folder: the SHA-256 of the lines
 * `<sha256 of file>  <relative path>\n` (two spaces, as `sha256sum` prints them), one per
 * file, sorted by the bytes of the path (as `LC_ALL=C sort`). A symbolic link to a file is
 * listed under its own path with the content it points to, as `sha256sum` would read it;
 * folders and links to folders are not listed (their files are, under their real paths).
 */
export async function directoryDigest(root: string): Promise<string> {
  const lines: Array<{ path: Buffer; line: string }> = [];
  const buffer = hashBuffer();
  for (const entry of await walkTree(root)) {
    if (entry.kind === 'directory' || entry.kind === 'other') continue;
    if (entry.kind === 'symlink' && !(await fs.stat(entry.absolute)).isFile()) continue;
    lines.push({ path: Buffer.from(entry.relative), line: `${await sha256OfFile(entry.absolute, buffer, { followLinks: true })}  ${entry.relative}\n` });
  }
  lines.sort((a, b) => Buffer.compare(a.path, b.path));
  return createHash('sha256')
    .update(lines.map((l) => l.line).join(''))
    .digest('hex');
}
