import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import express from 'express';
import { readPackageRequest } from '../../../src/adapters/http/package-upload';
import { ToolportError } from '../../../src/domain/errors';

/** The install and upgrade bodies (docs/http-api.md §4): an MCP Bundle as a zip upload or a path, with its id. */
describe('HTTP package requests: bundles', () => {
  let server: Server;
  let base: string;
  let uploadDir: string;
  let seen: { name: string; bytes: string; id?: string; grants: string[] } | undefined;

  beforeEach(async () => {
    uploadDir = mkdtempSync(join(tmpdir(), 'toolport-upload-'));
    const app = express();
    app.use(express.json());
    app.post('/p', async (req, res) => {
      try {
        const pkg = await readPackageRequest(req, uploadDir);
        seen = { name: basename(pkg.path), bytes: existsSync(pkg.path) ? readFileSync(pkg.path, 'latin1') : '', id: pkg.id, grants: pkg.grants };
        pkg.cleanup();
        res.json({ ok: true });
      } catch (error) {
        res.status(400).json({ code: (error as ToolportError).code, message: (error as Error).message });
      }
    });
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    seen = undefined;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    rmSync(uploadDir, { recursive: true, force: true });
  });

  it('takes an application/zip body as a bundle, with ?id= and ?grant=', async () => {
    const response = await fetch(`${base}/p?id=files&grant=write_paths`, {
      method: 'POST',
      headers: { 'content-type': 'application/zip' },
      body: 'PK\u0003\u0004zip',
    });
    expect(response.status).toBe(200);
    expect(seen).toEqual({ name: 'package.mcpb', bytes: 'PK\u0003\u0004zip', id: 'files', grants: ['write_paths'] });
  });

  it('takes "id" in a JSON body, and refuses one that is not text', async () => {
    const send = (body: unknown) => fetch(`${base}/p`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
    expect((await send({ path: '/srv/files.mcpb', id: 'files' })).status).toBe(200);
    expect(seen).toMatchObject({ id: 'files' });
    const refused = await send({ path: '/srv/files.mcpb', id: 7 });
    expect(refused.status).toBe(400);
    expect(await refused.json()).toEqual({ code: 'BAD_REQUEST', message: 'id must be a string' });
  });
});
