import { createWriteStream, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import type { Request } from 'express';
import { ToolportError } from '../../domain/errors';
import { LIMITS } from '../../domain/limits';
import { parseGrants, type PermissionName } from '../../domain/permissions';

export interface PackageRequest {
  path: string;
  sha256?: string;
  /** `install --force`: `"force": true` in a JSON body, `?force=true` with an upload. */
  force: boolean;
  /** The permissions granted: `"grants": [...]` in a JSON body, `?grant=` repeated with an upload. */
  grants: PermissionName[];
  /** An MCP Bundle's plugin id (`"id"` in a JSON body, `?id=` with an upload; docs/mcp-servers.md). */
  id?: string;
  /** Removes the uploaded copy, if the request carried one. */
  cleanup(): void;
}

const UPLOAD_PREFIX = 'upload-';

const GZIP_TYPES = ['application/gzip', 'application/x-gzip', 'application/octet-stream', 'application/x-tar+gzip'];
/** An MCP Bundle's body; staging tells a zip from a gzip by its first bytes, whatever the type said. */
const ZIP_TYPES = ['application/zip', 'application/x-zip-compressed'];

/**
 * docs/http-api.md install/upgrade body: JSON `{path, sha256?, force?, grants?, id?}` naming a
 * package on the backend's disk, or the `.tgz` or `.mcpb` itself as the body (written to a
 * private temporary file first; the expected SHA-256 may come in the `x-toolport-sha256` header
 * or `?sha256=`, the grants as `?grant=` repeated, a bundle's id as `?id=`). An unknown grant is
 * refused before the body is read.
 */
export async function readPackageRequest(req: Request, uploadDir: string): Promise<PackageRequest> {
  const grants = [...grantsOf(req)];
  const type = (req.headers['content-type'] ?? '').split(';')[0].trim().toLowerCase();
  if (GZIP_TYPES.includes(type) || ZIP_TYPES.includes(type)) {
    const dir = mkdtempSync(join(uploadDir, UPLOAD_PREFIX));
    const path = join(dir, ZIP_TYPES.includes(type) ? 'package.mcpb' : 'package.tgz');
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
    const id = typeof req.query.id === 'string' ? req.query.id : undefined;
    return {
      path,
      sha256,
      force: req.query.force === 'true',
      grants,
      ...(id !== undefined ? { id } : {}),
      cleanup: () => rmSync(dir, { recursive: true, force: true }),
    };
  }
  const body = req.body as { path?: unknown; sha256?: unknown; force?: unknown; id?: unknown } | undefined;
  if (!body || typeof body !== 'object' || typeof body.path !== 'string' || body.path.length === 0) {
    throw new ToolportError('BAD_REQUEST', 'body must be JSON {"path": "<package dir, .tgz or .mcpb>", "sha256"?: "<hex>"}, a gzip package or a zip bundle');
  }
  if (body.id !== undefined && typeof body.id !== 'string') throw new ToolportError('BAD_REQUEST', 'id must be a string');
  if (body.sha256 !== undefined && typeof body.sha256 !== 'string') throw new ToolportError('BAD_REQUEST', 'sha256 must be a string');
  if (body.force !== undefined && typeof body.force !== 'boolean') throw new ToolportError('BAD_REQUEST', 'force must be true or false');
  const id = body.id as string | undefined;
  return {
    path: body.path,
    sha256: body.sha256 as string | undefined,
    force: body.force === true,
    grants,
    ...(id !== undefined ? { id } : {}),
    cleanup: () => undefined,
  };
}

/** The grants of an upload (`?grant=` repeated) or of a JSON body (`"grants"`), read before the body is; BAD_REQUEST naming an unknown one. */
function grantsOf(req: Request): Set<PermissionName> {
  const query = req.query.grant;
  const fromQuery = query === undefined ? [] : Array.isArray(query) ? query : [query];
  const body = req.body as { grants?: unknown } | undefined;
  const fromBody = body && typeof body === 'object' && !Buffer.isBuffer(body) ? body.grants : undefined;
  if (fromBody !== undefined && !Array.isArray(fromBody)) throw new ToolportError('BAD_REQUEST', 'grants must be a list of permission names');
  return parseGrants([...fromQuery, ...((fromBody as unknown[] | undefined) ?? [])]);
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
