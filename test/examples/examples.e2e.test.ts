import { execFileSync } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { GrpcPluginRuntime } from '../../src/adapters/grpc/grpc-plugin-runtime';
import { FsPackageSource } from '../../src/adapters/package/fs-package-source';
import type { PluginInstance, PluginLaunchSpec } from '../../src/application/ports/plugin-runtime';
import type { PluginManifest } from '../../src/domain/manifest';
import type { SessionIdentity } from '../../src/domain/session';
import { CapturingLogger } from '../support/capturing-logger';
import { ProcessSandbox } from '../support/processes/process-sandbox';
import { waitForNoProcesses } from '../support/processes/process-sweep';
import { REPO_ROOT as root } from '../support/processes/toolport-paths';

const schemas = new AjvSchemaCompiler();
const kanban: SessionIdentity = { task_id: 'task-42', session_id: 'sess-1', workspace_id: 'ws-7', surface: 'kanban-task' };

/** The example plugins, installed from their folders and run as real processes. */
describe('example plugins', () => {
  const sandbox = new ProcessSandbox('toolport-examples-');
  let base: string;
  let source: FsPackageSource;
  let runtime: GrpcPluginRuntime;
  const specs = new Map<string, { spec: PluginLaunchSpec; manifest: PluginManifest }>();

  beforeAll(async () => {
    execFileSync(process.execPath, [path.join(root, 'scripts', 'build-examples.js')], { cwd: root, stdio: 'pipe' });
    base = sandbox.root;
    source = new FsPackageSource(base, schemas, '0.1.0');
    runtime = new GrpcPluginRuntime(new CapturingLogger(), { startTimeoutMs: 15_000, healthIntervalMs: 60_000, restartBackoffMs: 100 });
    for (const name of ['echo', 'notes']) {
      const staged = await source.stage(path.join(root, 'examples', 'plugins', name));
      const installed = await source.commit(staged);
      const { id, version } = staged.manifest;
      specs.set(name, { manifest: staged.manifest, spec: { pluginId: id, version, ...installed, dataDir: await source.dataDir(id) } });
    }
  }, 30_000);

  afterAll(async () => {
    await runtime?.stopAll();
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

  it('installs both examples with the ids and tools the docs promise', () => {
    expect(specs.get('echo')!.manifest.id).toBe('toolport.echo');
    expect(specs.get('notes')!.manifest.id).toBe('toolport.notes');
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

  it('notes keeps each task\'s notes, finds them, and still has them after a restart', async () => {
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
      expect(fs.readdirSync(path.join(spec.dataDir, 'notes')).filter((f) => f.endsWith('.tmp'))).toEqual([]);
    } finally {
      await runtime.stop(instance);
    }
  }, 30_000);
});
