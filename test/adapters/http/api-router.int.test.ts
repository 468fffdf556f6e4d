import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import express from 'express';
import type { Catalog, StartedSession } from '../../../src/api';
import { apiRouter, type ApiRouter } from '../../../src/adapters/http/api-router';
import { errorHandler } from '../../../src/adapters/http/http-errors';
import { ToolportError } from '../../../src/domain/errors';

const TOOL = {
  plugin_id: 'acme.notes',
  plugin_version: '1.0.0',
  local_name: 'add',
  exposed_name: 'kandev_acme_notes_add',
  description: 'Adds a note.',
  surfaces: ['kanban-task' as const],
  input_schema: { type: 'object' },
  annotations: { read_only_hint: false, destructive_hint: false, idempotent_hint: false, open_world_hint: false },
};
const CATALOG: Catalog = { generation: '000000000001-0a1b2c3d', revision: 2, tools: [TOOL] };
const STARTED: StartedSession = { session_id: 's-1', task_id: 'T-1', workspace_id: 'w', surface: 'kanban-task', profile: 'default', status: 'starting' };

describe('the API router', () => {
  let server: Server;
  let base: string;

  beforeAll(async () => {
    const app = express();
    const api = apiRouter(app);
    api.answer('GET /api/v1/catalog', async () => CATALOG);
    api.serve('POST /api/v1/sessions', (_req, send) => send(201, STARTED));
    api.serve('DELETE /api/v1/sessions/:id', (req, send) => {
      if (req.params.id !== 's-1') throw new ToolportError('NOT_FOUND', `no session ${JSON.stringify(req.params.id)}`);
      send(204, null);
    });
    app.use(errorHandler(() => undefined));
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('registers each route by its src/api key and answers the declared body as JSON, 200 unless told', async () => {
    const catalog = await fetch(`${base}/api/v1/catalog`);
    expect(catalog.status).toBe(200);
    expect(await catalog.json()).toEqual(CATALOG);
    const started = await fetch(`${base}/api/v1/sessions`, { method: 'POST' });
    expect(started.status).toBe(201);
    expect(await started.json()).toEqual(STARTED);
  });

  it('answers a null body as a status with no body, and hands a failure to the error handler', async () => {
    const stopped = await fetch(`${base}/api/v1/sessions/s-1`, { method: 'DELETE' });
    expect(stopped.status).toBe(204);
    expect(await stopped.text()).toBe('');
    const unknown = await fetch(`${base}/api/v1/sessions/s-2`, { method: 'DELETE' });
    expect(unknown.status).toBe(404);
    expect(await unknown.json()).toEqual({ error: { code: 'NOT_FOUND', message: 'no session "s-2"', details: null } });
  });
});

/**
 * Never run: `npm run typecheck` compiles it, and each `@ts-expect-error` fails the compile if
 * the line under it is accepted. These are the answers the router must refuse: a field src/api
 * does not declare (at any depth, in a value that is not a literal, where assignability alone
 * would let it through), and a field it declares that is missing.
 */
export function refusedAnswers(api: ApiRouter): void {
  const surplus = { ...CATALOG, tools: [{ ...TOOL, cost: 3 }] };
  // @ts-expect-error undeclared in src/api: tools.cost
  api.answer('GET /api/v1/catalog', () => surplus);
  const { revision: _revision, ...missing } = CATALOG;
  // @ts-expect-error revision is missing
  api.answer('GET /api/v1/catalog', () => missing);
  const startedWithMore = { ...STARTED, pid: 4242 };
  api.serve('POST /api/v1/sessions', (_req, send) => {
    // @ts-expect-error undeclared in src/api: pid
    send(201, startedWithMore);
  });
  api.serve('DELETE /api/v1/sessions/:id', (_req, send) => {
    // @ts-expect-error a route declared without a body sends none
    send(200, STARTED);
  });
}
