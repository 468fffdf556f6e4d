import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { gunzipSync, gzipSync } from 'node:zlib';
import { hostileTgz, type RawTarEntry } from './hostile-tgz';

/**
 * A gzip'd tar of the files directly in `packageDir` (none when it is undefined), followed by
 * `zeroBytes` of zeros after its end-of-archive blocks: the decompression bomb of issue 15,
 * tiny on disk (zeros compress about 1000:1) and huge once gunzipped.
 */
export function paddedTgz(packageDir: string | undefined, zeroBytes: number): Buffer {
  const entries: RawTarEntry[] = packageDir
    ? readdirSync(packageDir).map((name) => ({
        name,
        type: 'file',
        content: readFileSync(join(packageDir, name)),
        mode: statSync(join(packageDir, name)).mode & 0o777,
      }))
    : [];
  const archive = entries.length > 0 ? gunzipSync(hostileTgz(entries)) : Buffer.alloc(0);
  return gzipSync(Buffer.concat([archive, Buffer.alloc(zeroBytes)]), { level: 9 });
}
