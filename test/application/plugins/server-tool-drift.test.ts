import type { JsonObject } from '../../../src/domain/json';
import type { PluginManifest } from '../../../src/domain/manifest';
import { ToolportError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour } from '../../support/fake-plugins';
import { manifestFixture } from '../../support/fixtures';
import { waitUntil } from '../../support/invocation';

const schema = { type: 'object' };
const tool = (name: string, extra: JsonObject = {}): JsonObject => ({ name, description: `Does ${name}.`, inputSchema: schema, ...extra });

function mcpManifest(id: string, extra: { autoAccept?: boolean; version?: string; config?: boolean } = {}): PluginManifest {
  return {
    api_version: 1,
    id,
    version: extra.version ?? '1.0.0',
    runtime: {
      type: 'mcp-stdio',
      command: `${id}-server.js`,
      args: extra.config ? ['${config.mode}'] : [],
      env: {},
      surfaces: ['kanban-task', 'office-task'],
      auto_accept_tools: extra.autoAccept === true,
    },
    agent_tools: [],
    ...(extra.config ? { config_schema: { type: 'object', properties: { mode: { type: 'string' } }, required: ['mode'] } } : {}),
  };
}

/** A fake MCP server whose list is whatever `tools` holds when it is asked. */
function server(h: BackendHarness, manifest: PluginManifest, tools: JsonObject[]): { path: string; list: JsonObject[] } {
  const state = { path: '', list: tools };
  state.path = h.addPackage(manifest, { tools: {}, serverTools: () => state.list });
  return state;
}

describe('MCP server tools: pinned, drift, accept', () => {
  let h: BackendHarness;
  const record = async (id: string) => (await h.store.getPlugin(id))!;
  const catalogNames = (id: string) =>
    h.catalog
      .current()
      .tools.filter((t) => t.plugin_id === id)
      .map((t) => t.local_name);

  beforeEach(async () => {
    h = await createBackendHarness({ settings: { restartBackoffMs: 5 } });
  });

  afterEach(() => h.shutdown());

  /** Crashes the plugin's process and waits for the restart and the list it brings. */
  async function restart(id: string): Promise<void> {
    const before = h.running.instanceOf(id)!.pid();
    h.runtime.crash(h.running.instanceOf(id)!);
    await waitUntil(
      async () => {
        const pid = h.running.instanceOf(id)!.pid();
        return pid !== undefined && pid !== before && (await record(id)).status === 'active';
      },
      2000,
      'the restart',
    );
    await h.supervision.settled();
    await h.pins.settled();
  }

  it("holds a later start's different list as tool_drift, keeping the pinned tools and the catalog revision", async () => {
    const fake = server(h, mcpManifest('acme.mcp'), [tool('keep'), tool('edit'), tool('gone')]);
    await h.install.execute({ path: fake.path });
    expect(await record('acme.mcp')).not.toHaveProperty('tool_drift');
    h.catalogChanges.length = 0;

    fake.list = [tool('keep'), tool('edit', { description: 'New.' }), tool('fresh'), tool('bad', { description: '' })];
    await restart('acme.mcp');

    const drifted = await record('acme.mcp');
    expect(drifted.tool_drift).toEqual({ added: ['fresh'], removed: ['gone'], changed: ['edit'], detected_at: expect.any(String) });
    expect(drifted.manifest.agent_tools.map((t) => [t.name, t.description])).toEqual([
      ['edit', 'Does edit.'],
      ['gone', 'Does gone.'],
      ['keep', 'Does keep.'],
    ]);
    // A tool that would not import is a warning of this list, never "added".
    expect(drifted.manifest.warnings?.map((w) => w.path)).toEqual(['server_tools["bad"]']);
    expect(catalogNames('acme.mcp')).toEqual(['edit', 'gone', 'keep']);
    // The restart's own revisions (error, then active again) only: the drift adds none.
    expect(h.catalogChanges.map((snapshot) => snapshot.tools.filter((t) => t.plugin_id === 'acme.mcp').length)).toEqual([0, 3]);
  });

  it('recomputes the drift at each re-list, keeping when it was first seen, and clears it when the server matches again', async () => {
    const fake = server(h, mcpManifest('acme.mcp'), [tool('a')]);
    await h.install.execute({ path: fake.path });
    h.catalogChanges.length = 0;
    const instance = h.running.instanceOf('acme.mcp')!;

    fake.list = [tool('a'), tool('b')];
    await h.runtime.listChanged(instance);
    await h.pins.settled();
    const first = (await record('acme.mcp')).tool_drift!;
    expect(first).toMatchObject({ added: ['b'], removed: [], changed: [] });

    fake.list = [tool('b')];
    await h.runtime.listChanged(instance);
    await h.pins.settled();
    expect((await record('acme.mcp')).tool_drift).toEqual({ added: ['b'], removed: ['a'], changed: [], detected_at: first.detected_at });

    fake.list = [tool('a')];
    await h.runtime.listChanged(instance);
    await h.pins.settled();
    expect(await record('acme.mcp')).not.toHaveProperty('tool_drift');
    expect(h.catalogChanges).toEqual([]);
  });

  it('accept re-lists and pins the list as exactly one catalog revision; again with no drift it is a no-op', async () => {
    const fake = server(h, mcpManifest('acme.mcp'), [tool('keep'), tool('gone')]);
    await h.install.execute({ path: fake.path });
    fake.list = [tool('keep'), tool('fresh')];
    await h.runtime.listChanged(h.running.instanceOf('acme.mcp')!);
    await h.pins.settled();
    h.catalogChanges.length = 0;

    const accepted = await h.acceptTools.execute('acme.mcp');
    expect(accepted).not.toHaveProperty('tool_drift');
    expect(accepted.manifest.agent_tools.map((t) => t.name)).toEqual(['fresh', 'keep']);
    expect(await record('acme.mcp')).toEqual(accepted);
    expect(h.catalogChanges).toHaveLength(1);
    expect(catalogNames('acme.mcp')).toEqual(['fresh', 'keep']);

    await h.pins.settled();
    expect(await h.acceptTools.execute('acme.mcp')).toEqual(accepted);
    expect(h.catalogChanges).toHaveLength(1);
  });

  it("refuses an accept whose new tool takes another plugin's exposed name (NAME_COLLISION), keeping the drift", async () => {
    // acme-mcp's tool b is exposed as kandev_acme_mcp_b, as acme.mcp's tool b would be.
    await h.install.execute({ path: h.addPackage(manifestFixture('acme-mcp', '1.0.0', ['b']), echoBehaviour()) });
    const fake = server(h, mcpManifest('acme.mcp'), [tool('a')]);
    await h.install.execute({ path: fake.path });
    fake.list = [tool('a'), tool('b')];
    await h.runtime.listChanged(h.running.instanceOf('acme.mcp')!);
    await h.pins.settled();

    await expect(h.acceptTools.execute('acme.mcp')).rejects.toMatchObject({ code: 'NAME_COLLISION' });
    expect((await record('acme.mcp')).tool_drift).toMatchObject({ added: ['b'] });
    expect(catalogNames('acme.mcp')).toEqual(['a']);
  });

  it('refuses an accept for a plugin that is not an MCP server, and for one with no server running', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    await expect(h.acceptTools.execute('acme.tools')).rejects.toEqual(
      new ToolportError('BAD_REQUEST', 'plugin "acme.tools" is not an MCP server: it has no pinned tools to accept'),
    );
    await expect(h.acceptTools.execute('no.such')).rejects.toMatchObject({ code: 'NOT_FOUND' });

    const fake = server(h, mcpManifest('acme.mcp'), [tool('a')]);
    await h.install.execute({ path: fake.path });
    fake.list = [tool('b')];
    await h.runtime.listChanged(h.running.instanceOf('acme.mcp')!);
    await h.pins.settled();
    await h.disable.execute('acme.mcp');
    await expect(h.acceptTools.execute('acme.mcp')).rejects.toMatchObject({ code: 'PLUGIN_NOT_ACTIVE' });
    expect((await record('acme.mcp')).tool_drift).toMatchObject({ added: ['b'], removed: ['a'] });
  });

  it('auto-accepts a re-list as one revision, holding a tool that turns non-destructive and warning of a clashing new one', async () => {
    await h.install.execute({ path: h.addPackage(manifestFixture('acme-mcp', '1.0.0', ['taken']), echoBehaviour()) });
    const fake = server(h, mcpManifest('acme.mcp', { autoAccept: true }), [tool('wipe'), tool('edit')]);
    await h.install.execute({ path: fake.path });
    h.catalogChanges.length = 0;

    fake.list = [tool('wipe', { annotations: { destructiveHint: false } }), tool('edit', { description: 'New.' }), tool('fresh'), tool('taken')];
    await h.runtime.listChanged(h.running.instanceOf('acme.mcp')!);
    await h.pins.settled();

    const after = await record('acme.mcp');
    expect(after.manifest.agent_tools.map((t) => [t.name, t.description, t.annotations.destructive_hint])).toEqual([
      ['edit', 'New.', true],
      ['fresh', 'Does fresh.', true],
      ['wipe', 'Does wipe.', true],
    ]);
    expect(after.tool_drift).toMatchObject({ added: [], removed: [], changed: ['wipe'] });
    expect(after.manifest.warnings).toEqual([
      { path: 'server_tools["taken"]', message: expect.stringContaining('is already taken by plugin "acme-mcp"; not imported') },
    ]);
    expect(h.catalogChanges).toHaveLength(1);
    expect(catalogNames('acme.mcp')).toEqual(['edit', 'fresh', 'wipe']);
  });

  it('pins the first list of a version installed waiting for its configuration at its first start', async () => {
    const fake = server(h, mcpManifest('acme.mcp', { config: true }), [tool('a'), tool('b')]);
    const installed = await h.install.execute({ path: fake.path });
    expect(installed).toMatchObject({ status: 'needs_config', manifest: { agent_tools: [] } });

    await h.configure.execute({ pluginId: 'acme.mcp', values: { mode: 'on' } });
    await h.pins.settled();
    const pinned = await record('acme.mcp');
    expect(pinned).toMatchObject({ status: 'active', server: { name: 'in-memory-server', version: '1.0.0' } });
    expect(pinned).not.toHaveProperty('tool_drift');
    expect(pinned.manifest.agent_tools.map((t) => t.name)).toEqual(['a', 'b']);
    expect(catalogNames('acme.mcp')).toEqual(['a', 'b']);

    // From then on it is pinned: a different list is drift.
    fake.list = [tool('a')];
    await h.runtime.listChanged(h.running.instanceOf('acme.mcp')!);
    await h.pins.settled();
    expect((await record('acme.mcp')).tool_drift).toMatchObject({ removed: ['b'] });
  });

  it('puts a first-pinned plugin whose names clash in error and stops its server', async () => {
    await h.install.execute({ path: h.addPackage(manifestFixture('acme-mcp', '1.0.0', ['b']), echoBehaviour()) });
    const fake = server(h, mcpManifest('acme.mcp', { config: true }), [tool('a'), tool('b')]);
    await h.install.execute({ path: fake.path });
    await h.configure.execute({ pluginId: 'acme.mcp', values: { mode: 'on' } });
    await h.pins.settled();

    const refused = await record('acme.mcp');
    expect(refused).toMatchObject({
      status: 'error',
      last_error: expect.stringMatching(/^NAME_COLLISION: tool name "kandev_acme_mcp_b" of plugin "acme.mcp" is already taken by plugin "acme-mcp"/),
    });
    expect(refused.manifest.agent_tools).toEqual([]);
    expect(h.running.instanceOf('acme.mcp')).toBeUndefined();
    expect(catalogNames('acme.mcp')).toEqual([]);
  });

  it("drops the old version's drift at an upgrade, which pins the new version's list", async () => {
    const fake = server(h, mcpManifest('acme.mcp'), [tool('a')]);
    await h.install.execute({ path: fake.path });
    fake.list = [tool('b')];
    await h.runtime.listChanged(h.running.instanceOf('acme.mcp')!);
    await h.pins.settled();
    expect((await record('acme.mcp')).tool_drift).toBeDefined();

    const next = server(h, mcpManifest('acme.mcp', { version: '2.0.0' }), [tool('b'), tool('c')]);
    const upgraded = await h.upgrade.execute({ pluginId: 'acme.mcp', path: next.path });
    await h.pins.settled();
    expect(upgraded).not.toHaveProperty('tool_drift');
    expect(await record('acme.mcp')).not.toHaveProperty('tool_drift');
    expect((await record('acme.mcp')).manifest.agent_tools.map((t) => t.name)).toEqual(['b', 'c']);
  });
});
