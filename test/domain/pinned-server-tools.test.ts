import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../src/domain/json';
import type { PluginManifest } from '../../src/domain/manifest';
import { hasPinnedTools, isImportWarning, pinServerTools, relistPinned, type ServerListing } from '../../src/domain/pinned-server-tools';

const schemas = new AjvSchemaCompiler();
const server = { name: 'fixture', version: '1.0.0' };

function serverTool(name: string, extra: JsonObject = {}): JsonObject {
  return { name, description: `Does ${name}.`, inputSchema: { type: 'object' }, ...extra };
}

function listing(...tools: JsonObject[]): ServerListing {
  return { server, tools };
}

function mcpManifest(autoAccept = false, extra: Partial<PluginManifest> = {}): PluginManifest {
  return {
    api_version: 1,
    id: 'acme.mcp',
    version: '1.0.0',
    runtime: { type: 'mcp-stdio', command: 'node', args: ['server.js'], env: {}, surfaces: ['kanban-task', 'office-task'], auto_accept_tools: autoAccept },
    agent_tools: [],
    ...extra,
  };
}

const own = { path: 'runtime.colour', message: 'unknown field' };

describe('pinServerTools', () => {
  it('marks the manifest pinned and keeps its own warnings before the import', () => {
    const pinned = pinServerTools(mcpManifest(false, { warnings: [own] }), listing(serverTool('a'), serverTool('b', { description: '' })), schemas);
    expect(hasPinnedTools(pinned)).toBe(true);
    expect(pinned.agent_tools.map((tool) => tool.name)).toEqual(['a']);
    expect(pinned.warnings?.[0]).toEqual(own);
    expect(pinned.warnings?.slice(1).every(isImportWarning)).toBe(true);
  });

  it("replaces an earlier import's warnings instead of adding to them", () => {
    const first = pinServerTools(mcpManifest(false, { warnings: [own] }), listing(serverTool('b', { description: '' })), schemas);
    const again = pinServerTools(first, listing(serverTool('b', { description: '' })), schemas);
    expect(again.warnings).toEqual(first.warnings);
  });

  it('is not pinned before a first list', () => {
    expect(hasPinnedTools(mcpManifest())).toBe(false);
  });
});

describe('relistPinned', () => {
  const pinnedManifest = (autoAccept: boolean, ...tools: JsonObject[]) => pinServerTools(mcpManifest(autoAccept), listing(...tools), schemas);

  it('keeps the pinned tools and answers the drift without auto-accept', () => {
    const manifest = pinnedManifest(false, serverTool('keep'), serverTool('gone'), serverTool('edit'));
    const outcome = relistPinned(
      'acme.mcp',
      manifest,
      listing(serverTool('keep'), serverTool('edit', { description: 'New.' }), serverTool('new')),
      [],
      'tp',
      schemas,
    );
    expect(outcome.manifest.agent_tools).toEqual(manifest.agent_tools);
    expect(outcome.drift).toEqual({ added: ['new'], removed: ['gone'], changed: ['edit'] });
  });

  it('answers no drift when the list matches', () => {
    const manifest = pinnedManifest(false, serverTool('a'));
    expect(relistPinned('acme.mcp', manifest, listing(serverTool('a')), [], 'tp', schemas)).toEqual({ manifest, drift: null });
  });

  it('warns of a tool that would not import instead of counting it as added', () => {
    const manifest = pinnedManifest(false, serverTool('a'));
    const outcome = relistPinned('acme.mcp', manifest, listing(serverTool('a'), serverTool('bad', { description: ' ' })), [], 'tp', schemas);
    expect(outcome.drift).toBeNull();
    expect(outcome.manifest.warnings?.map((warning) => warning.path)).toEqual(['server_tools["bad"]']);
  });

  it('pins the new list at once with auto-accept', () => {
    const manifest = pinnedManifest(true, serverTool('a'));
    const outcome = relistPinned('acme.mcp', manifest, listing(serverTool('a', { description: 'New.' }), serverTool('b')), [], 'tp', schemas);
    expect(outcome.drift).toBeNull();
    expect(outcome.manifest.agent_tools.map((tool) => [tool.name, tool.description])).toEqual([
      ['a', 'New.'],
      ['b', 'Does b.'],
    ]);
  });

  it('holds, with auto-accept, a tool that turns non-destructive', () => {
    const manifest = pinnedManifest(true, serverTool('wipe'));
    const claimsSafe = serverTool('wipe', { annotations: { destructiveHint: false } });
    const outcome = relistPinned('acme.mcp', manifest, listing(claimsSafe), [], 'tp', schemas);
    expect(outcome.manifest.agent_tools).toEqual(manifest.agent_tools);
    expect(outcome.drift).toEqual({ added: [], removed: [], changed: ['wipe'] });
  });

  it('warns of, and does not import, an auto-accepted tool whose exposed name another plugin has', () => {
    const manifest = pinnedManifest(true, serverTool('a'));
    // Plugin acme-mcp's tool b is exposed as tp_acme_mcp_b too.
    const clashing = relistPinned('acme.mcp', manifest, listing(serverTool('a'), serverTool('b')), [{ id: 'acme-mcp', toolNames: ['b'] }], 'tp', schemas);
    expect(clashing.manifest.agent_tools.map((tool) => tool.name)).toEqual(['a']);
    expect(clashing.drift).toBeNull();
    expect(clashing.manifest.warnings).toEqual([
      { path: 'server_tools["b"]', message: expect.stringContaining('already taken by plugin "acme-mcp"; not imported') },
    ]);
  });
});
