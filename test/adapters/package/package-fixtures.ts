import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';
import { Header } from 'tar';

/** One raw tar entry, written exactly as given (no sanitising), so tests can build hostile archives. */
export interface RawTarEntry {
  path: string;
  type?: 'File' | 'Directory' | 'SymbolicLink' | 'Link' | 'CharacterDevice' | 'ExtendedHeader';
  content?: string | Buffer;
  linkpath?: string;
  mode?: number;
  /** Declared size, when it should differ from the content (a truncated bomb). */
  size?: number;
}

function block(entry: RawTarEntry): Buffer {
  const content = typeof entry.content === 'string' ? Buffer.from(entry.content) : (entry.content ?? Buffer.alloc(0));
  const type = entry.type ?? 'File';
  const header = new Header({
    path: entry.path,
    type,
    size: entry.size ?? (type === 'File' || type === 'ExtendedHeader' ? content.length : 0),
    linkpath: entry.linkpath,
    mode: entry.mode ?? (type === 'Directory' ? 0o755 : 0o644),
    mtime: new Date(0),
    uid: 0,
    gid: 0,
  });
  const headerBlock = Buffer.alloc(512);
  header.encode(headerBlock, 0);
  const padding = Buffer.alloc((512 - (content.length % 512)) % 512);
  return Buffer.concat([headerBlock, content, padding]);
}

/** Writes a gzip'd tar of `entries` to `file`. */
export function writeTgz(file: string, entries: RawTarEntry[]): string {
  const tar = Buffer.concat([...entries.map(block), Buffer.alloc(1024)]);
  fs.writeFileSync(file, zlib.gzipSync(tar));
  return file;
}

/**
 * Writes a .tgz of `entries` followed by `bytes` zeros after the tar stream's
 * end-of-archive blocks (zeros: what a careless packer pads with; an attacker, a bomb).
 */
export async function writeTgzWithTrailer(file: string, entries: RawTarEntry[], bytes: number): Promise<void> {
  const gzip = zlib.createGzip({ level: 9 });
  const done = new Promise<void>((resolve, reject) => {
    const out = fs.createWriteStream(file);
    out.on('finish', resolve);
    out.on('error', reject);
    gzip.pipe(out);
  });
  gzip.write(Buffer.concat([...entries.map(block), Buffer.alloc(1024)]));
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = bytes; left > 0; left -= chunk.length) {
    if (!gzip.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end();
  await done;
}

/** Writes a .tgz holding one file of `size` zero bytes, streamed so memory stays small. */
export async function writeZeroBombTgz(file: string, size: number): Promise<void> {
  const gzip = zlib.createGzip({ level: 1 });
  const out = fs.createWriteStream(file);
  const done = new Promise<void>((resolve, reject) => {
    out.on('finish', resolve);
    out.on('error', reject);
  });
  gzip.pipe(out);
  const manifestText = manifestYaml('bomb.plugin');
  gzip.write(block({ path: 'manifest.yaml', content: manifestText }));
  gzip.write(block({ path: 'big.bin', size }).subarray(0, 512));
  const chunk = Buffer.alloc(1024 * 1024);
  for (let left = size; left > 0; left -= chunk.length) {
    if (!gzip.write(left >= chunk.length ? chunk : chunk.subarray(0, left))) await new Promise((r) => gzip.once('drain', r));
  }
  gzip.end(Buffer.alloc(1024 + ((512 - (size % 512)) % 512)));
  await done;
}

/** A valid manifest for `id` with one tool and an `any` executable at `bin/plugin`. */
export function manifestYaml(id: string, version = '1.0.0', extra = ''): string {
  return [
    'api_version: 1',
    `id: ${id}`,
    `version: ${version}`,
    'runtime:',
    '  type: binary',
    '  executables:',
    '    any: bin/plugin',
    'agent_tools:',
    '  - name: run',
    '    description: Runs the thing',
    '    surfaces: [kanban-task]',
    '    input_schema:',
    '      type: object',
    extra,
  ].join('\n');
}

/** A valid package folder for `id@version` under `dir`. */
export function writePackageDir(dir: string, id: string, version = '1.0.0'): string {
  fs.mkdirSync(path.join(dir, 'bin'), { recursive: true });
  fs.writeFileSync(path.join(dir, 'manifest.yaml'), manifestYaml(id, version));
  fs.writeFileSync(path.join(dir, 'bin', 'plugin'), '#!/bin/sh\necho plugin\n', { mode: 0o644 });
  fs.writeFileSync(path.join(dir, 'README.md'), `# ${id}\n`);
  return dir;
}

/** Every path under `root` (relative, sorted), to prove nothing else was written. */
export function listTree(root: string): string[] {
  const out: string[] = [];
  const visit = (dir: string, prefix: string): void => {
    for (const child of fs.readdirSync(dir, { withFileTypes: true })) {
      const rel = prefix ? `${prefix}/${child.name}` : child.name;
      out.push(rel);
      if (child.isDirectory()) visit(path.join(dir, child.name), rel);
    }
  };
  visit(root, '');
  return out.sort();
}
