import { gzipSync } from 'node:zlib';

/** One tar entry as an attacker would write it: any name, any link target, no sanitising. */
export interface RawTarEntry {
  name: string;
  type: 'file' | 'dir' | 'symlink' | 'hardlink';
  content?: string | Buffer;
  linkname?: string;
  mode?: number;
}

const TYPE_FLAG = { file: '0', hardlink: '1', symlink: '2', dir: '5' } as const;

function field(header: Buffer, offset: number, length: number, value: string): void {
  const bytes = Buffer.from(value, 'utf8');
  if (bytes.length > length) throw new Error(`tar field too long: ${value.slice(0, 40)}…`);
  bytes.copy(header, offset);
}

function octal(value: number, length: number): string {
  return value.toString(8).padStart(length - 1, '0') + '\0';
}

/**
 * A plain ustar archive, gzip'd, written byte by byte so nothing (like the `tar` package's own
 * path stripping) cleans the hostile names before the product sees them. Names up to 100 bytes.
 */
export function hostileTgz(entries: RawTarEntry[]): Buffer {
  const blocks: Buffer[] = [];
  for (const entry of entries) {
    const content = entry.type === 'file' ? Buffer.from(entry.content ?? '') : Buffer.alloc(0);
    const header = Buffer.alloc(512);
    field(header, 0, 100, entry.name);
    field(header, 100, 8, octal(entry.mode ?? (entry.type === 'dir' ? 0o755 : 0o644), 8));
    field(header, 108, 8, octal(0, 8));
    field(header, 116, 8, octal(0, 8));
    field(header, 124, 12, octal(content.length, 12));
    field(header, 136, 12, octal(Math.floor(Date.now() / 1000), 12));
    field(header, 148, 8, '        ');
    field(header, 156, 1, TYPE_FLAG[entry.type]);
    field(header, 157, 100, entry.linkname ?? '');
    field(header, 257, 6, 'ustar\0');
    field(header, 263, 2, '00');
    let sum = 0;
    for (const byte of header) sum += byte;
    field(header, 148, 8, sum.toString(8).padStart(6, '0') + '\0 ');
    blocks.push(header, content);
    const pad = (512 - (content.length % 512)) % 512;
    if (pad) blocks.push(Buffer.alloc(pad));
  }
  blocks.push(Buffer.alloc(1024));
  return gzipSync(Buffer.concat(blocks));
}
