import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendApi } from '../../../src/adapters/http/backend-api';
import { BackendUrl } from '../../../src/application/sessions/backend-url';
import { apiUseCases } from '../../../src/composition/backend-http-bindings';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { sessionRecordFixture } from '../../support/fixtures';

const TOKEN = 'admin-token-for-scope-routes';

/** The scope, profile, catalog-view and session routes of the operator API over the in-memory core. */
describe('HTTP API: scopes and profiles', () => {
  let h: BackendHarness;
  let server: Server;
  let base: string;
  let uploadDir: string;

  beforeEach(async () => {
    h = await createBackendHarness({ liveSession: false });
    h.container.get(BackendUrl).set('http://127.0.0.1:7800');
    await h.install.execute({ path: h.addEchoPackage('acme.notes', '1.0.0', ['add', 'list', 'remove']) });
    uploadDir = mkdtempSync(join(tmpdir(), 'toolport-scope-routes-'));
    const app = backendApi(apiUseCases(h.container), { adminToken: TOKEN, uploadDir }, h.logger);
    server = await new Promise<Server>((resolve) => {
      const listening = app.listen(0, '127.0.0.1', () => resolve(listening));
    });
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterEach(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
    await h.shutdown();
    rmSync(uploadDir, { recursive: true, force: true });
  });

  async function call(method: string, path: string, body?: unknown, token = TOKEN): Promise<{ status: number; body: unknown }> {
    const response = await fetch(`${base}${path}`, {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: text === '' ? null : JSON.parse(text) };
  }

  it('asks for the admin token on every scope and profile route', async () => {
    for (const [method, path] of [
      ['GET', '/api/v1/plugins/acme.notes/scope'],
      ['PUT', '/api/v1/plugins/acme.notes/scope'],
      ['GET', '/api/v1/profiles'],
      ['GET', '/api/v1/profiles/default'],
      ['PUT', '/api/v1/profiles/ops'],
      ['DELETE', '/api/v1/profiles/ops'],
    ] as const) {
      expect((await call(method, path, undefined, 'wrong')).status).toBe(401);
    }
  });

  it('reads and replaces a plugin scope: 200 with the scope as stored, 422 SCOPE_INVALID with every violation, 404 for an unknown plugin', async () => {
    expect(await call('GET', '/api/v1/plugins/acme.notes/scope')).toEqual({ status: 200, body: { workspaces: '*', disabled_tools: {} } });
    const put = await call('PUT', '/api/v1/plugins/acme.notes/scope', { workspaces: ['ws-2', 'ws-1'], disabled_tools: { 'ws-1': ['remove', 'add'], '*': [] } });
    expect(put).toEqual({ status: 200, body: { workspaces: ['ws-1', 'ws-2'], disabled_tools: { 'ws-1': ['add', 'remove'] } } });
    expect((await call('GET', '/api/v1/plugins/acme.notes/scope')).body).toEqual(put.body);

    const bad = await call('PUT', '/api/v1/plugins/acme.notes/scope', { workspaces: ['*'], disabled_tools: { 'ws-1': ['nope'] } });
    expect(bad.status).toBe(422);
    expect(bad.body).toMatchObject({
      error: {
        code: 'SCOPE_INVALID',
        details: [
          { path: 'workspaces[0]', message: 'must not be "*", which stands for every workspace' },
          { path: 'disabled_tools["ws-1"][0]', message: '"nope" is not a tool the plugin declares' },
        ],
      },
    });
    expect((await call('PUT', '/api/v1/plugins/acme.notes/scope', { workspaces: '*' })).body).toMatchObject({
      error: { code: 'SCOPE_INVALID', details: [{ path: 'disabled_tools', message: 'is required' }] },
    });
    expect((await call('GET', '/api/v1/plugins/acme.nope/scope')).body).toEqual({
      error: { code: 'NOT_FOUND', message: 'no plugin "acme.nope" is installed', details: null },
    });
    expect((await call('PUT', '/api/v1/plugins/acme.nope/scope', { workspaces: '*', disabled_tools: {} })).status).toBe(404);
  });

  it('lists, reads, sets and deletes profiles with their codes', async () => {
    expect(await call('GET', '/api/v1/profiles')).toEqual({ status: 200, body: [{ name: 'default', include: ['*'], exclude: [] }] });
    expect(await call('PUT', '/api/v1/profiles/ops', { include: ['acme.*', 'acme.*'] })).toEqual({
      status: 200,
      body: { name: 'ops', include: ['acme.*'], exclude: [] },
    });
    expect((await call('GET', '/api/v1/profiles')).body).toEqual([
      { name: 'default', include: ['*'], exclude: [] },
      { name: 'ops', include: ['acme.*'], exclude: [] },
    ]);
    expect(await call('GET', '/api/v1/profiles/ops')).toEqual({ status: 200, body: { name: 'ops', include: ['acme.*'], exclude: [] } });

    const invalid = await call('PUT', '/api/v1/profiles/Ops', { exclude: 'x' });
    expect(invalid.status).toBe(422);
    expect((invalid.body as { error: { code: string; details: Array<{ path: string }> } }).error).toMatchObject({
      code: 'PROFILE_INVALID',
      details: [{ path: 'name' }, { path: 'include' }, { path: 'exclude' }],
    });

    expect(await call('DELETE', '/api/v1/profiles/default')).toMatchObject({ status: 409, body: { error: { code: 'PROFILE_PROTECTED' } } });
    expect(await call('GET', '/api/v1/profiles/ghost')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
    expect(await call('DELETE', '/api/v1/profiles/ghost')).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });

    await h.store.saveSession(sessionRecordFixture({ session_id: 's-ops', profile: 'ops', status: 'live' }));
    expect(await call('DELETE', '/api/v1/profiles/ops')).toMatchObject({
      status: 409,
      body: { error: { code: 'PROFILE_IN_USE', details: { sessions: ['s-ops'], rules: [] } } },
    });
    await h.store.saveSession(sessionRecordFixture({ session_id: 's-ops', profile: 'ops', status: 'stopped' }));
    expect(await call('DELETE', '/api/v1/profiles/ops')).toEqual({ status: 204, body: null });
    expect((await call('GET', '/api/v1/profiles/ops')).status).toBe(404);
  });

  it('starts a session with a profile and lists it; 400 off the name pattern, 422 UNKNOWN_PROFILE for none such', async () => {
    await call('PUT', '/api/v1/profiles/ops', { include: ['*'] });
    const started = await call('POST', '/api/v1/sessions', { task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile: 'ops', launch: false });
    expect(started.status).toBe(201);
    expect(started.body).toMatchObject({ workspace_id: 'W', profile: 'ops', status: 'starting' });
    const plain = await call('POST', '/api/v1/sessions', { task_id: 'T', workspace_id: 'W', surface: 'kanban-task', launch: false });
    expect(plain.body).toMatchObject({ profile: 'default' });
    const listed = (await call('GET', '/api/v1/sessions')).body as Array<{ profile: string }>;
    expect(listed.map((s) => s.profile)).toEqual(['ops', 'default']);

    expect(await call('POST', '/api/v1/sessions', { task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile: 'Not Valid' })).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_REQUEST' } },
    });
    expect(await call('POST', '/api/v1/sessions', { task_id: 'T', workspace_id: 'W', surface: 'kanban-task', profile: 'ghost', launch: false })).toMatchObject({
      status: 422,
      body: { error: { code: 'UNKNOWN_PROFILE', message: 'no profile "ghost"' } },
    });
    expect(await call('POST', '/api/v1/sessions', { task_id: 'T', workspace_id: '*', surface: 'kanban-task' })).toMatchObject({ status: 400 });
  });

  it('answers a view of the catalog with all three parameters, the whole catalog with none, and 400 or 422 otherwise', async () => {
    await call('PUT', '/api/v1/plugins/acme.notes/scope', { workspaces: '*', disabled_tools: { 'ws-2': ['remove'] } });
    await call('PUT', '/api/v1/profiles/no-add', { include: ['*'], exclude: ['*_add'] });
    const whole = (await call('GET', '/api/v1/catalog')).body as { generation: string; revision: number; tools: Array<{ local_name: string }> };
    expect(whole.tools.map((t) => t.local_name)).toEqual(['add', 'list', 'remove']);
    const viewed = await call('GET', '/api/v1/catalog?workspace=ws-2&profile=no-add&surface=kanban-task');
    expect(viewed.status).toBe(200);
    const view = viewed.body as typeof whole;
    expect({ generation: view.generation, revision: view.revision }).toEqual({ generation: whole.generation, revision: whole.revision });
    expect(view.tools.map((t) => t.local_name)).toEqual(['list']);

    const partial = await call('GET', '/api/v1/catalog?workspace=ws-2&surface=kanban-task');
    expect(partial).toMatchObject({
      status: 400,
      body: { error: { code: 'BAD_REQUEST', message: 'workspace, profile and surface go together: profile missing' } },
    });
    expect((await call('GET', '/api/v1/catalog?workspace=*&profile=default&surface=kanban-task')).status).toBe(400);
    expect((await call('GET', '/api/v1/catalog?workspace=w&profile=default&surface=moon')).status).toBe(400);
    expect((await call('GET', '/api/v1/catalog?workspace=w&profile=Bad!&surface=kanban-task')).status).toBe(400);
    expect(await call('GET', '/api/v1/catalog?workspace=w&profile=ghost&surface=kanban-task')).toMatchObject({
      status: 422,
      body: { error: { code: 'UNKNOWN_PROFILE' } },
    });
  });
});
