import fs from 'node:fs/promises';
import path from 'node:path';
import { InvalidPackageError } from '../../domain/errors';

/** Where an MCP Bundle keeps its manifest (docs/mcp-servers.md, "Bundles"). */
export const BUNDLE_MANIFEST_FILE = 'manifest.json';

function refuse(message: string): never {
  throw new InvalidPackageError([{ path: BUNDLE_MANIFEST_FILE, message }]);
}

/** The first four bytes of `file` (fewer when it is shorter), to tell a zip from a gzip. */
export async function readHead(file: string): Promise<Buffer> {
  const handle = await fs.open(file, 'r');
  try {
    const head = Buffer.alloc(4);
    const { bytesRead } = await handle.read(head, 0, 4, 0);
    return head.subarray(0, bytesRead);
  } finally {
    await handle.close();
  }
}

/** Reads and parses `<root>/manifest.json` of an unpacked bundle; throws InvalidPackageError naming it. */
export async function readBundleManifest(root: string, maxBytes: number): Promise<unknown> {
  const file = path.join(root, BUNDLE_MANIFEST_FILE);
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat) refuse('missing: an MCP Bundle has manifest.json at its root');
  if (!stat.isFile()) refuse('must be a regular file');
  if (stat.size > maxBytes) refuse(`is ${stat.size} bytes; the limit is ${maxBytes}`);
  try {
    return JSON.parse(await fs.readFile(file, 'utf8')) as unknown;
  } catch (error) {
    return refuse(`is not valid JSON: ${(error as Error).message.split('\n')[0]}`);
  }
}
