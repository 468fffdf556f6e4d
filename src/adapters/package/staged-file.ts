import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import fs from 'node:fs/promises';
import { InvalidPackageError } from '../../domain/errors';
import { PACKAGE_PATH } from './package-limits';

/**
 * Copies the file at `source` into `dest` (created 0600, never an existing file), hashing the
 * bytes as they are written: the only time the operator's file is read. Everything after
 * (inspection, the `--sha256` check, extraction, the copy a shared store keeps) reads `dest`,
 * so a file renamed or rewritten meanwhile cannot put other bytes under the hash that was
 * checked. Refuses a source that is not a regular file once opened, or larger than `maxBytes`.
 * Answers the SHA-256 of what was copied.
 */
export async function copyFileHashing(source: string, dest: string, maxBytes: number): Promise<string> {
  const input = await fs.open(source, constants.O_RDONLY | constants.O_NONBLOCK);
  try {
    // Judged on the open descriptor: what is read below is this file, whatever the path names now.
    if (!(await input.stat()).isFile()) throw new InvalidPackageError([{ path: PACKAGE_PATH, message: `${source} is not a regular file` }]);
    const output = await fs.open(dest, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
    try {
      const hash = createHash('sha256');
      await copyBounded(
        input,
        output,
        maxBytes,
        () => new InvalidPackageError([{ path: PACKAGE_PATH, message: `the package file is larger than ${maxBytes} bytes` }]),
        (chunk) => hash.update(chunk),
      );
      return hash.digest('hex');
    } finally {
      await output.close();
    }
  } finally {
    await input.close();
  }
}

/**
 * Copies `input` to `output` from where each stands, passing every chunk to `onChunk` before it
 * is written; throws `tooLarge()` as soon as more than `maxBytes` were read. Answers the bytes
 * copied.
 */
export async function copyBounded(
  input: fs.FileHandle,
  output: fs.FileHandle,
  maxBytes: number,
  tooLarge: () => Error,
  onChunk: (chunk: Buffer) => void = () => undefined,
): Promise<number> {
  const buffer = Buffer.allocUnsafe(1 << 16);
  let copied = 0;
  for (;;) {
    const { bytesRead } = await input.read(buffer, 0, buffer.length, null);
    if (bytesRead === 0) return copied;
    copied += bytesRead;
    if (copied > maxBytes) throw tooLarge();
    const chunk = buffer.subarray(0, bytesRead);
    onChunk(chunk);
    await output.write(chunk);
  }
}

/** Writes `bytes` into `dest` (created 0600, never an existing file) and answers their SHA-256. */
export async function writeFileHashing(dest: string, bytes: Buffer): Promise<string> {
  await fs.writeFile(dest, bytes, { mode: 0o600, flag: constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW });
  return createHash('sha256').update(bytes).digest('hex');
}

/** Room a gzip stream may take beyond the bytes it holds (stored blocks of incompressible data). */
export function compressedCap(archiveBytes: number): number {
  return archiveBytes + Math.ceil(archiveBytes / 1000) + 1024;
}
