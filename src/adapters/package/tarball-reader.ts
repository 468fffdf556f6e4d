import fs from 'node:fs';
import path from 'node:path';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip, type Gunzip } from 'node:zlib';
import { Parser, type ReadEntry, Unpack } from 'tar';

type WarnData = Record<string, unknown>;
import { InvalidPackageError, type Violation } from '../../domain/errors';
import { PACKAGE_PATH, type PackageLimits } from './package-limits';
import { isInside } from './package-tree';
import { TarEntryRules } from './tar-entry-rules';

/** A tar warning as a violation, its path relative to the package (tar reports absolute ones). */
function warningViolation(message: string, data: WarnData, dest?: string): Violation {
  const entryPath = data.path ?? (data.entry as { path?: unknown } | undefined)?.path;
  let where = typeof entryPath === 'string' ? entryPath : PACKAGE_PATH;
  if (dest !== undefined && path.isAbsolute(where) && isInside(dest, where)) where = path.relative(dest, where) || PACKAGE_PATH;
  return { path: where, message: `archive refused: ${message}` };
}

/**
 * The archive's tar bytes, gunzipped here rather than by tar: tar keeps everything after the
 * end-of-archive blocks by re-concatenating it (64 MB of zeros behind a 65 KB file took 71 s
 * of CPU), and bounds the decompressed stream only by a ratio. Decompression stops at the
 * first byte over `limits.archiveBytes`, and reading stops at the end-of-archive blocks.
 */
class CappedBytes extends Transform {
  private seen = 0;
  over = false;

  constructor(private readonly cap: number) {
    super();
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    if (this.over) return done();
    const room = this.cap - this.seen;
    this.seen += chunk.length;
    if (chunk.length <= room) return done(null, chunk);
    this.over = true;
    done(null, chunk.subarray(0, room));
  }
}

interface Feed {
  /**
   * Settles once reading has stopped: `over` when the decompressed cap was passed, `ended`
   * when the sink was ended (the archive was read whole) and will finish on its own.
   */
  done: Promise<{ over: boolean; ended: boolean }>;
  /** Stop reading now; `endSink` when the archive is whole and the sink should finish. */
  stop(endSink: boolean): void;
}

/** Feeds `file`'s tar bytes (gunzipped when it is gzip) into `sink`. */
function feed(file: string, cap: number, sink: Parser): Feed {
  const input = fs.createReadStream(file);
  const counted = new CappedBytes(cap);
  let gunzip: Gunzip | undefined;
  let settle: (result: { over: boolean; ended: boolean } | Error) => void = () => undefined;
  const done = new Promise<{ over: boolean; ended: boolean }>((resolve, reject) => {
    settle = (result) => (result instanceof Error ? reject(result) : resolve(result));
  });
  let stopped = false;
  const stop = (endSink: boolean, error?: Error): void => {
    if (stopped) return;
    stopped = true;
    input.destroy();
    gunzip?.destroy();
    counted.destroy();
    const ended = endSink && error === undefined;
    if (ended) sink.end();
    settle(error ?? { over: counted.over, ended });
  };
  // The two zero blocks that end an archive: what follows is not the package's.
  sink.on('eof', () => stop(true));
  input.on('error', (error) => stop(false, error));
  input.once('readable', () => {
    const head = input.read(2) as Buffer | null;
    if (head !== null) input.unshift(head);
    let source: NodeJS.ReadableStream = input;
    if (head !== null && head[0] === 0x1f && head[1] === 0x8b) {
      gunzip = createGunzip();
      gunzip.on('error', (error) => stop(false, new Error(`the archive is not valid gzip (${error.message})`)));
      source = input.pipe(gunzip);
    }
    // The sink's backpressure holds decompression back (an extraction writes files as it goes).
    source.pipe(counted).pipe(sink as unknown as NodeJS.WritableStream, { end: false });
    counted.on('end', () => stop(!counted.over));
  });
  return { done, stop: (endSink) => stop(endSink) };
}

/**
 * Pass one: reads every header without writing anything. Stops reading at once when a cap
 * is passed, so a bomb costs next to nothing to refuse. Throws InvalidPackageError listing
 * every problem. `file` is the staged copy (fs-package-source.ts), which was hashed as it was made.
 */
export async function inspectTarball(file: string, limits: PackageLimits): Promise<void> {
  const rules = new TarEntryRules(limits);
  const warnings: Violation[] = [];
  let reading: Feed | undefined;
  const parser = new Parser({
    // One broken header refuses the package: read no further (garbage is a warning a block).
    onwarn: (_code, message, data) => {
      warnings.push(warningViolation(message, data));
      reading?.stop(false);
    },
    onReadEntry: (entry: ReadEntry) => {
      rules.admit(entry);
      entry.resume();
      if (rules.exceeded) reading?.stop(false);
    },
  });
  const parsed = new Promise<void>((resolve, reject) => {
    parser.on('error', (error: Error) => (rules.exceeded ? resolve() : reject(error)));
    parser.on('end', () => resolve());
  });
  reading = feed(file, limits.archiveBytes, parser);
  try {
    const { over, ended } = await reading.done;
    if (over) rules.archiveTooLarge(limits.archiveBytes);
    if (ended) await parsed;
  } catch (error) {
    warnings.push(warningViolation((error as Error).message, {}));
  }
  const violations = [...rules.finish(), ...warnings];
  if (violations.length > 0) throw new InvalidPackageError(violations);
}

/**
 * Pass two: extracts into `dest` (a fresh staging folder) under the same rules (the staged
 * copy does not change, but the rules cost nothing to apply twice). A refused entry, and every entry after it, is skipped rather
 * than aborting, so when this settles no write is still in flight and `dest` can be removed.
 */
export async function extractTarball(file: string, dest: string, limits: PackageLimits): Promise<void> {
  const rules = new TarEntryRules(limits);
  const warnings: Violation[] = [];
  let reading: Feed | undefined;
  const unpack = new Unpack({
    cwd: dest,
    preserveOwner: false,
    noMtime: true,
    filter: (_path, entry) => rules.admit(entry as ReadEntry),
    onwarn: (_code, message, data) => {
      warnings.push(warningViolation(message, data, dest));
      reading?.stop(true);
    },
  });
  const closed = new Promise<void>((resolve, reject) => {
    unpack.on('error', reject);
    unpack.on('close', () => resolve());
  });
  let ended = false;
  try {
    reading = feed(file, limits.archiveBytes, unpack);
    const result = await reading.done;
    ended = result.ended;
    if (result.over) rules.archiveTooLarge(limits.archiveBytes);
  } catch (error) {
    warnings.push(warningViolation((error as Error).message, {}));
  }
  // However reading stopped, the writes already started finish before this settles.
  if (!ended) unpack.end();
  await closed.catch((error: Error) => warnings.push(warningViolation(error.message, {})));
  const violations = [...rules.finish(), ...warnings];
  if (violations.length > 0) throw new InvalidPackageError(violations);
}
