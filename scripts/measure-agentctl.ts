/**
 * Measures agentctl with a 3,200-tool catalog (200 plugins × 16 tools): how long a snapshot
 * swap takes (PUT body already parsed: check + decide + build + swap) and how long `tools/list`
 * takes, in-process and over Streamable HTTP. Medians; run with:
 *
 *   npx esbuild scripts/measure-agentctl.ts --bundle --platform=node --packages=external \
 *     --outfile=/tmp/measure-agentctl.js && NODE_PATH=$PWD/node_modules node /tmp/measure-agentctl.js
 */
import { ApplySnapshot } from '../src/application/agentctl/apply-snapshot';
import { HeldSchemaMemo } from '../src/application/agentctl/held-schema-memo';
import { ListTools } from '../src/application/agentctl/list-tools';
import { AgentctlSession } from '../src/application/agentctl/session-identity';
import { ToolRegistry } from '../src/application/agentctl/tool-registry';
import { DEFAULT_SETTINGS } from '../src/application/settings';
import { AjvSchemaCompiler } from '../src/adapters/ajv/ajv-schema-compiler';
import { SilentLogger } from '../src/adapters/memory/silent-logger';
import { runAgentctl } from '../src/composition/agentctl-main';
import type { CatalogSnapshot, CatalogTool } from '../src/domain/catalog';
import { exposedToolName } from '../src/domain/naming';
import { median, timed, timedSync } from '../bench/stats';

function catalog(revision: number, distinctSchemas: boolean): CatalogSnapshot {
  const tools: CatalogTool[] = [];
  for (let p = 0; p < 200; p++) {
    const pluginId = `vendor${p}.tools`;
    for (let t = 0; t < 16; t++) {
      const localName = `tool_${t}`;
      const field = distinctSchemas ? `field_${p}_${t}` : 'value';
      tools.push({
        plugin_id: pluginId,
        plugin_version: '1.0.0',
        local_name: localName,
        exposed_name: exposedToolName('kandev', pluginId, localName),
        title: `Tool ${t} of plugin ${p}`,
        description: `Does thing ${t} for plugin ${p} (revision ${revision}).`,
        surfaces: ['kanban-task', 'office-task'],
        input_schema: {
          type: 'object',
          properties: { [field]: { type: 'string', maxLength: 200 }, count: { type: 'integer', minimum: 0 } },
          required: [field],
        },
        annotations: { read_only_hint: false, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
      });
    }
  }
  tools.sort((a, b) => (a.exposed_name < b.exposed_name ? -1 : 1));
  return { generation: '000000000001-aaaaaaaa', revision, tools };
}

async function measureInProcess(distinctSchemas: boolean): Promise<void> {
  const registry = new ToolRegistry();
  const session = new AgentctlSession({ task_id: 't', session_id: 's', workspace_id: 'w', surface: 'kanban-task' });
  const apply = new ApplySnapshot(registry, session, new HeldSchemaMemo(new AjvSchemaCompiler()), DEFAULT_SETTINGS, new SilentLogger());
  const list = new ListTools(registry, 0);
  const cold = timedSync(() => apply.execute(catalog(1, distinctSchemas)));
  const swaps: number[] = [];
  for (let revision = 2; revision <= 21; revision++) {
    const snapshot = catalog(revision, distinctSchemas);
    swaps.push(timedSync(() => apply.execute(snapshot)));
  }
  const lists: number[] = [];
  for (let i = 0; i < 200; i++) lists.push(await timed(() => list.execute()));
  const label = distinctSchemas ? 'distinct schemas' : 'one shared schema';
  console.log(
    `in-process, ${label}: first apply ${cold.toFixed(1)} ms; swap median ${median(swaps).toFixed(1)} ms (20 runs); ListTools median ${(median(lists) * 1000).toFixed(1)} µs`,
  );
}

async function measureOverHttp(): Promise<void> {
  const env = {
    TOOLPORT_SESSION_TOKEN: 's',
    TOOLPORT_MCP_TOKEN: 'm',
    TOOLPORT_CONTROL_TOKEN: 'c',
    TOOLPORT_TASK_ID: 't',
    TOOLPORT_SESSION_ID: 's',
    TOOLPORT_WORKSPACE_ID: 'w',
    TOOLPORT_SURFACE: 'kanban-task',
  };
  const agentctl = await runAgentctl(
    { backendUrl: 'http://127.0.0.1:9', env, logger: new SilentLogger(), writeReady: () => undefined, version: 'measure' },
    DEFAULT_SETTINGS,
  );
  const put = async (snapshot: CatalogSnapshot) => {
    const response = await fetch(`${agentctl.controlUrl}/api/v1/mcp/plugin-tools`, {
      method: 'PUT',
      headers: { authorization: 'Bearer c', 'content-type': 'application/json' },
      body: JSON.stringify(snapshot),
    });
    await response.json();
  };
  await put(catalog(1, true));
  const puts: number[] = [];
  for (let revision = 2; revision <= 11; revision++) {
    const snapshot = catalog(revision, true);
    puts.push(await timed(() => put(snapshot)));
  }
  const headers = { authorization: 'Bearer m', 'content-type': 'application/json', accept: 'application/json, text/event-stream' };
  const init = await fetch(agentctl.mcpUrl!, {
    method: 'POST',
    headers,
    body: JSON.stringify({
      jsonrpc: '2.0',
      id: 0,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'm', version: '1' } },
    }),
  });
  const session = { ...headers, 'mcp-session-id': init.headers.get('mcp-session-id')!, 'mcp-protocol-version': '2025-06-18' };
  await init.text();
  const lists: number[] = [];
  let bytes = 0;
  for (let i = 1; i <= 50; i++) {
    lists.push(
      await timed(async () => {
        const response = await fetch(agentctl.mcpUrl!, {
          method: 'POST',
          headers: session,
          body: JSON.stringify({ jsonrpc: '2.0', id: i, method: 'tools/list' }),
        });
        bytes = (await response.text()).length;
      }),
    );
  }
  console.log(
    `over HTTP: PUT of a 3,200-tool snapshot median ${median(puts).toFixed(1)} ms (10 runs); tools/list median ${median(lists).toFixed(1)} ms (50 runs, ${(bytes / 1024).toFixed(0)} KiB)`,
  );
  await agentctl.close();
}

async function main(): Promise<void> {
  await measureInProcess(false);
  await measureInProcess(true);
  await measureOverHttp();
}

void main().then(() => process.exit(0));
