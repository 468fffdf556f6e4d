import { createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { ToolportError } from '../../domain/errors';
import { LIMITS } from '../../domain/limits';

export interface PackageRequest {
  path: string;
  sha256?: string;
  /** `install --force`: `"force": true` in a JSON body, `?force=true` with an upload. */
  force: boolean;
  /** Removes the uploaded copy, if the request carried one. */
  cleanup(): void;
}

const UPLOAD_PREFIX = 'upload-';

const GZIP_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/x-tar+gzip'];

/**
 * docs/http-api.md install/upgrade body: JSON `{path, sha256?}` naming a package on the backend's
 * disk, or the `.tgz` itself as the body (written to a private temporary file first; the
 * expected SHA-256 may come in the `x-toolport-sha256` header or `?sha256=`).
 */
export async function readPackageRequest(req: Request, uploadDir: string): Promise<PackageRequest> {
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (GZIP_TYPES.includes(type)) {
    const dir = mkdtempSync(join(uploadDir, UPLOAD_PREFIX));
    const path = join(dir, 'package.tgz');
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      received += chunk.length;
      if (received > LIMITS.packageUnpackedBytes) req.destroy(new ToolportError('BAD_REQUEST', 'uploaded package is larger than 200 MiB'));
    });
    try {
      await pipeline(req, createWriteStream(path, { mode: 0o600 }));
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      if (error instanceof ToolportError) throw error;
      throw new ToolportError('BAD_REQUEST', 'the package upload did not complete');
    }
    const header = req.headers['x-toolport-sha256'];
    const query = req.query.sha256;
    const sha256 = typeof header === 'string' ? header : typeof query === 'string' ? query : undefined;
    return { path, sha256, force: req.query.force === 'true', cleanup: () => rmSync(dir, { recursive: true, force: true }) };
  }
  const body = req.body as { path?: unknown; sha256?: unknown; force?: unknown } | undefined;
  if (!body || typeof body !== 'object' || typeof body.path !== 'string' || body.path.length === 0) {
    throw new ToolportError('BAD_REQUEST', 'body must be JSON {"path": "<package dir or .tgz>", "sha256"?: "<hex>"} or a gzip package');
  }
  if (body.sha256 !== undefined && typeof body.sha256 !== 'string') throw new ToolportError('BAD_REQUEST', 'sha256 must be a string');
  if (body.force !== undefined && typeof body.force !== 'boolean') throw new ToolportError('BAD_REQUEST', 'force must be true or false');
  return { path: body.path, sha256: body.sha256 as string | undefined, force: body.force === true, cleanup: () => undefined };
}

/**
 * Removes uploads a crashed backend left half-written (each up to 200 MiB). Call at start,
 * while holding the data-dir lock, before the API takes requests.
 */
export function removeStaleUploads(uploadDir: string): void {
  let names: string[];
  try {
    names = readdirSync(uploadDir);
  } catch {
    return;
  }
  for (const name of names) {
    if (name.startsWith(UPLOAD_PREFIX)) rmSync(join(uploadDir, name), { recursive: true, force: true });
  }
}
