import { mcpToolList, toMcpTool } from '../../../src/adapters/mcp/mcp-tool-list';
import { BUILT_IN_TOOLS } from '../../../src/application/agentctl/built-in-tools';
import type { JsonObject } from '../../../src/domain/json';
import { catalogTool } from '../../support/test-backend';

describe('the tools/list shape of a tool', () => {
  it('lists a plugin tool with all four hints, its plugin in _meta and its schemas verbatim', () => {
    const input: JsonObject = { type: 'object', properties: { tag: { type: 'string' } } };
    const output: JsonObject = { type: 'object', properties: { ok: { type: 'boolean' } } };
    const mcp = toMcpTool(catalogTool('acme.tools', 'add_tag', { title: 'Add tag', description: 'does it', input_schema: input, output_schema: output }));
    expect(mcp).toEqual({
      name: 'kandev_acme_tools_add_tag',
      title: 'Add tag',
      description: 'does it',
      inputSchema: input,
      outputSchema: output,
      annotations: { readOnlyHint: false, destructiveHint: true, idempotentHint: false, openWorldHint: true },
      _meta: { 'toolport/plugin_id': 'acme.tools', 'toolport/plugin_version': '1.0.0' },
    });
    expect(mcp.inputSchema).toBe(input);
    expect(mcp.outputSchema).toBe(output);
  });

  it('omits title and outputSchema when the tool has none', () => {
    const mcp = toMcpTool(catalogTool('acme', 'run'));
    expect(mcp).not.toHaveProperty('title');
    expect(mcp).not.toHaveProperty('outputSchema');
  });

  it('lists the built-in get_task_context without _meta', () => {
    expect(toMcpTool(BUILT_IN_TOOLS[0]!)).toEqual({
      name: 'get_task_context',
      title: 'Get task context',
      description: expect.stringContaining('task, session and workspace'),
      inputSchema: { type: 'object', properties: {}, additionalProperties: false },
      outputSchema: expect.objectContaining({ required: ['task_id', 'session_id', 'workspace_id', 'surface'] }),
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true, openWorldHint: false },
    });
  });

  it('renders one listing once, so every tools/list until the next swap reuses it', () => {
    const listing = [...BUILT_IN_TOOLS, catalogTool('acme', 'run')];
    expect(mcpToolList(listing)).toBe(mcpToolList(listing));
    expect(mcpToolList([...listing])).not.toBe(mcpToolList(listing));
    expect(mcpToolList([...listing])[1]).toBe(mcpToolList(listing)[1]);
  });
});
