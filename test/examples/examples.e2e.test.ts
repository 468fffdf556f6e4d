import { execFileSync } from 'node:child_process';
import { randomBytes, randomUUID } from 'node:crypto';
import path from 'node:path';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { GrpcPluginRuntime } from '../../src/adapters/grpc/grpc-plugin-runtime';
import { GrpcHostServer } from '../../src/adapters/grpc/host/grpc-host-server';
import { InMemoryPluginStore } from '../../src/adapters/memory/in-memory-plugin-store';
import { FsPackageSource } from '../../src/adapters/package/fs-package-source';
import { AesGcmSecretBox } from '../../src/adapters/system/aes-gcm-secret-box';
import { CryptoIdGenerator } from '../../src/adapters/system/crypto-id-generator';
import { HostRequests } from '../../src/application/host/host-requests';
import { HostSessions } from '../../src/application/host/host-sessions';
import { launchSpecFor } from '../../src/application/plugins/launch-spec';
import { sealConfiguration } from '../../src/application/plugins/plugin-configuration';
import type { PluginCallContext, PluginInstance, PluginLaunchSpec } from '../../src/application/ports/plugin-runtime';
import { PluginStartError } from '../../src/domain/errors';
import type { JsonObject } from '../../src/domain/json';
import type { PluginManifest } from '../../src/domain/manifest';
import { CapturingLogger } from '../support/capturing-logger';
import { FakeTracker } from '../support/fake-tracker';
import { pluginRecordFixture } from '../support/fixtures';
import { ProcessSandbox } from '../support/processes/process-sandbox';
import { waitForNoProcesses } from '../support/processes/process-sweep';
import { REPO_ROOT as root } from '../support/processes/toolport-paths';
import { instanceOwner } from '../../src/domain/host-entry-owner';

const schemas = new AjvSchemaCompiler();
const kanban: PluginCallContext = { task_id: 'task-42', session_id: 'sess-1', workspace_id: 'ws-7', surface: 'kanban-task', profile: 'default' };

/**
 * The example plugins, installed from their folders and run as real processes, with the
 * backend's Host service (gRPC on a unix socket) over an in-memory store.
 */
describe('example plugins', () => {
  const sandbox = new ProcessSandbox('toolport-examples-');
  const TRACKER_TOKEN = `trk-${randomBytes(12).toString('hex')}`;
  let base: string;
  let source: FsPackageSource;
  let runtime: GrpcPluginRuntime;
  let host: GrpcHostServer;
  let tracker: FakeTracker;
  const box = new AesGcmSecretBox(randomBytes(32));
  const store = new InMemoryPluginStore();
  const runtimeLog = new CapturingLogger();
  const specs = new Map<string, { spec: PluginLaunchSpec; manifest: PluginManifest }>();

  /** The launch spec of an installed example with `config` as its configuration. */
  function specWith(name: string, config: JsonObject | null): Promise<PluginLaunchSpec> {
    const { manifest } = specs.get(name)!;
    return launchSpecFor({ packages: source, host }, manifest, config && sealConfiguration(box, manifest.id, config));
  }

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build-examples.js')], { cwd: root, stdio: 'pipe' });
    base = sandbox.root;
    source = new FsPackageSource(base, schemas, '0.1.0');
    const sessions = new HostSessions(new CryptoIdGenerator());
    host = new GrpcHostServer(
      sessions,
      new HostRequests(sessions, store, store, box, new CapturingLogger()),
      { runRoot: path.join(base, 'run') },
      new CapturingLogger(),
    );
    runtime = new GrpcPluginRuntime(runtimeLog, { startTimeoutMs: 15_000, healthIntervalMs: 60_000, restartBackoffMs: 100 });
    tracker = await new FakeTracker(TRACKER_TOKEN).start();
    for (const name of ['echo', 'notes', 'tracker', 'greeter-py']) {
      const staged = await source.stage(path.join(root, 'examples', 'plugins', name));
      await source.commit(staged);
      await store.transaction((tx) => tx.savePlugin(pluginRecordFixture({ id: staged.manifest.id, manifest: staged.manifest })));
      specs.set(name, { manifest: staged.manifest, spec: await launchSpecFor({ packages: source, host }, staged.manifest, null) });
    }
  }, 30_000);

  afterAll(async () => {
    await runtime?.stopAll();
    await host?.close();
    await tracker?.close();
    // The plugin processes run from their install folders under the sandbox: stopped means gone.
    const left = await waitForNoProcesses(sandbox.root);
    await sandbox.teardown();
    expect(left).toEqual([]);
  });

  async function call(instance: PluginInstance, name: string, localName: string, args: object, context = kanban) {
    const result = await runtime.invoke(instance, {
      invocationId: randomUUID(),
      localName,
      argumentsJson: JSON.stringify(args),
      context,
      timeoutMs: 10_000,
      signal: new AbortController().signal,
    });
    expect(result.isError).toBe(false);
    expect(result.text.trim()).not.toBe('');
    // Every example declares an output schema; what it returns must honour it.
    const declared = specs.get(name)!.manifest.agent_tools.find((t) => t.name === localName)!;
    const compiled = schemas.compile(declared.output_schema!);
    if (!compiled.ok) throw new Error(compiled.message);
    const structured = JSON.parse(result.structuredContentJson) as Record<string, unknown>;
    expect(compiled.schema.validate(structured)).toEqual([]);
    return { text: result.text, structured };
  }

  it('installs the examples with the ids, tools and capabilities the docs promise', () => {
    expect(specs.get('echo')!.manifest.id).toBe('toolport.echo');
    expect(specs.get('notes')!.manifest.id).toBe('toolport.notes');
    expect(specs.get('notes')!.manifest.capabilities).toEqual({ state: true });
    expect(specs.get('tracker')!.manifest.agent_tools.map((t) => t.name)).toEqual(['create_issue', 'get_issue', 'list_task_issues']);
    expect(specs.get('tracker')!.manifest.config_schema?.required).toEqual(['base_url', 'project', 'api_token']);
    expect(specs.get('notes')!.manifest.agent_tools.map((t) => t.name)).toEqual(['add_note', 'list_notes', 'search_notes']);
    const echo = specs.get('echo')!.manifest.agent_tools[0];
    expect(echo.annotations).toEqual({ read_only_hint: true, destructive_hint: false, idempotent_hint: true, open_world_hint: false });
    expect(echo.surfaces).toEqual(['kanban-task', 'office-task']);
  });

  it('echo answers with the message and the context the host bound to the call', async () => {
    const instance = await runtime.start(specs.get('echo')!.spec);
    try {
      const { text, structured } = await call(instance, 'echo', 'echo', { message: 'hello' });
      expect(text).toContain('hello');
      expect(structured).toMatchObject({
        message: 'hello',
        context: { task_id: 'task-42', session_id: 'sess-1', workspace_id: 'ws-7', surface: 'kanban-task' },
      });
    } finally {
      await runtime.stop(instance);
    }
  }, 20_000);

  it("notes keeps each task's notes, finds them, and still has them after a restart", async () => {
    const spec = specs.get('notes')!.spec;
    let instance = await runtime.start(spec);
    try {
      const first = await call(instance, 'notes', 'add_note', { text: 'The flaky test is in billing', tags: ['Bug', 'billing'] });
      expect(first.structured).toMatchObject({ note: { id: 1, tags: ['bug', 'billing'] }, total: 1 });
      await call(instance, 'notes', 'add_note', { text: 'Decided to retry payments twice' });
      const otherTask = { ...kanban, task_id: 'task-99' };
      expect((await call(instance, 'notes', 'list_notes', {}, otherTask)).structured).toEqual({ notes: [], total: 0 });

      await runtime.stop(instance);
      instance = await runtime.start(spec);

      const listed = await call(instance, 'notes', 'list_notes', {});
      expect(listed.structured.total).toBe(2);
      expect((listed.structured.notes as Array<{ text: string }>).map((n) => n.text)).toEqual([
        'Decided to retry payments twice',
        'The flaky test is in billing',
      ]);
      const tagged = await call(instance, 'notes', 'list_notes', { tag: 'BUG' });
      expect(tagged.structured.total).toBe(1);
      const found = await call(instance, 'notes', 'search_notes', { query: 'billing FLAKY' });
      expect(found.structured).toMatchObject({ total_matches: 1, notes: [{ id: 1 }] });
      const third = await call(instance, 'notes', 'add_note', { text: 'ids keep counting after a restart' });
      expect(third.structured).toMatchObject({ note: { id: 3 }, total: 3 });
      // Concurrent calls on one task queue their writes: no note is lost, no id repeats.
      const burst = await Promise.all(Array.from({ length: 8 }, (_, i) => call(instance, 'notes', 'add_note', { text: `burst ${i}` })));
      expect(new Set(burst.map((r) => (r.structured.note as { id: number }).id)).size).toBe(8);
      expect((await call(instance, 'notes', 'list_notes', { limit: 50 })).structured.total).toBe(11);
      // Kept in Host state, in chunks per task: two tasks, a key each.
      expect(await store.listStateKeys(instanceOwner('toolport.notes'), 'task/', undefined, 10)).toHaveLength(1);
    } finally {
      await runtime.stop(instance);
    }
  }, 30_000);

  it('tracker reads its token through GetConfig, files issues with it and remembers them per task across a restart', async () => {
    const config = { base_url: tracker.baseUrl, project: 'OPS', api_token: TRACKER_TOKEN };
    const spec = await specWith('tracker', config);
    let instance = await runtime.start(spec);
    try {
      const filed = await call(instance, 'tracker', 'create_issue', { title: 'Billing retries twice', body: 'seen in prod' });
      expect(filed.structured).toEqual({ issue: { id: 'OPS-1', title: 'Billing retries twice', url: `${tracker.baseUrl}/issues/OPS-1` } });
      expect(tracker.presented.every((token) => token === TRACKER_TOKEN)).toBe(true);
      await runtime.stop(instance);
      instance = await runtime.start(spec);
      expect((await call(instance, 'tracker', 'list_task_issues', {})).structured).toEqual({ issues: [filed.structured.issue] });
      expect((await call(instance, 'tracker', 'get_issue', { id: 'OPS-1' })).structured).toMatchObject({ status: 'open' });
      expect((await call(instance, 'tracker', 'list_task_issues', {}, { ...kanban, task_id: 'other' })).structured).toEqual({ issues: [] });
    } finally {
      await runtime.stop(instance);
    }
    expect(JSON.stringify(runtimeLog.records)).not.toContain(TRACKER_TOKEN);
  }, 30_000);

  /**
   * A sandboxed start (no network) will set PLUGIN_UNIX_SOCKET_DIR to the private TMPDIR; a
   * wrapper does it here, logging the folder it chose, so the host's own runtime parses the
   * handshake, checks who listens and calls each example there.
   */
  function inSocketDir(spec: PluginLaunchSpec): PluginLaunchSpec {
    const script = 'printf \'{"level":30,"msg":"socket dir","dir":"%s"}\\n\' "$TMPDIR" >&2; PLUGIN_UNIX_SOCKET_DIR="$TMPDIR" exec "$@"';
    return { ...spec, executable: '/bin/sh', args: ['-c', script, 'sh', spec.executable, ...spec.args] };
  }

  it.each([
    ['echo', 'echo', { message: 'hi' }, true],
    ['notes', 'list_notes', {}, true],
    ['tracker', 'list_task_issues', {}, true],
    ['greeter-py', 'greet', { name: 'Ada' }, false],
  ])(
    '%s listens on a unix socket in PLUGIN_UNIX_SOCKET_DIR when the host sets it, and answers there',
    async (name, tool, args, mutualTls) => {
      const config = name === 'tracker' ? { base_url: tracker.baseUrl, project: 'OPS', api_token: TRACKER_TOKEN } : null;
      const instance = await runtime.start(inSocketDir(await specWith(name, config)));
      try {
        await call(instance, name, tool, args);
        const id = specs.get(name)!.manifest.id;
        const fields = (message: string) =>
          runtimeLog.records.filter((r) => r.fields.plugin_id === id && r.message === message).map((r) => r.fields.plugin_fields as Record<string, string>);
        const dir = fields('socket dir').at(-1)!.dir;
        const serving = fields('plugin serving').at(-1)!;
        // The SDK says {network, address}; the Python example logs its socket.
        const socket = serving.address ?? serving.socket;
        expect(path.dirname(socket)).toBe(dir);
        expect(path.basename(socket)).toMatch(/^plugin-[0-9a-f]+$/);
        if (serving.network !== undefined) expect(serving.network).toBe('unix');
        // The SDK keeps mutual TLS on the socket, as go-plugin does; the Python example is plaintext.
        expect(instance.tls).toBe(mutualTls);
      } finally {
        await runtime.stop(instance);
      }
    },
    30_000,
  );

  it('tracker fails its start when the tracker refuses the configured token, saying so without the token', async () => {
    const wrong = `wrong-${randomBytes(8).toString('hex')}`;
    const failure = await runtime.start(await specWith('tracker', { base_url: tracker.baseUrl, project: 'OPS', api_token: wrong })).catch((e: unknown) => e);
    expect(failure).toBeInstanceOf(PluginStartError);
    const stderr = (failure as PluginStartError).stderr.join('\n');
    expect(stderr).toContain('refused the configured api_token (HTTP 401)');
    expect(stderr).not.toContain(wrong);
  }, 30_000);
});
