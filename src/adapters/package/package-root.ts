import fs from 'node:fs/promises';
import path from 'node:path';
import { MANIFEST_FILE } from './package-manifest-reader';

/**
 * The package root inside an unpacked tarball: the top itself when it holds manifest.yaml,
 * else its single top-level folder when that holds one (`tar czf p.tgz my-plugin/`).
 * Falls back to the top, so the manifest reader reports the missing manifest.
 */
export async function findPackageRoot(top: string): Promise<string> {
  if (await exists(path.join(top, MANIFEST_FILE))) return top;
  const children = await fs.readdir(top, { withFileTypes: true });
  if (children.length === 1 && children[0].isDirectory()) {
    const inner = path.join(top, children[0].name);
    if (await exists(path.join(inner, MANIFEST_FILE))) return inner;
  }
  return top;
}

async function exists(file: string): Promise<boolean> {
  return fs.lstat(file).then(
    () => true,
    () => false,
  );
}
