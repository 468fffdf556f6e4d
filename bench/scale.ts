/**
 * Scale: 200 plugins × 16 tools (3,200 tools, every tool with its own schema). The backend's
 * catalog rebuild (domain catalogTools + offerCatalog) in-process; an agentctl's snapshot
 * swap in-process (ApplySnapshot) and over its control API (`PUT /api/v1/mcp/plugin-tools`)
 * on a real agentctl process, which is also launched with the whole catalog (first apply);
 * `tools/list` over MCP with the official client.
 */
import { AjvSchemaCompiler } from '../src/adapters/ajv/ajv-schema-compiler';
import { SilentLogger } from '../src/adapters/memory/silent-logger';
import { ApplySnapshot } from '../src/application/agentctl/apply-snapshot';
import { HeldSchemaMemo } from '../src/application/agentctl/held-schema-memo';
import { ToolRegistry } from '../src/application/agentctl/tool-registry';
import { AgentctlSession } from '../src/application/agentctl/session-identity';
import { DEFAULT_SETTINGS } from '../src/application/settings';
import type { CatalogSnapshot } from '../src/domain/catalog';
import { catalogDelta } from '../src/domain/catalog-delta';
import { catalogTools, initialCatalogState, offerCatalog } from '../src/domain/catalog-revisions';
import { parseSnapshotText } from '../src/domain/snapshot-text';
import { catalogPushPayloadText } from '../src/adapters/websocket/link-payloads';
import type { AgentToolDeclaration } from '../src/domain/manifest';
import type { PluginRecord } from '../src/domain/plugin-record';
import { connectAgent } from '../test/support/clients/mcp-agent';
import type { ProcessSandbox } from '../test/support/processes/process-sandbox';
import { launchAgentctl, STANDALONE_TOKENS } from './standalone-agentctl';
import { median, rssMb, timed, timedSync } from './stats';

const PLUGINS = 200;
const TOOLS = 16;
const GENERATION = '000000000001-0000be7c';

function declaration(p: number, t: number, edition: number): AgentToolDeclaration {
  return {
    name: `tool_${t}`,
    title: `Tool ${t} of plugin ${p}`,
    description: `Does thing ${t} for plugin ${p}${p === 0 && t === 0 ? ` (edition ${edition})` : ''}.`,
    surfaces: t % 4 === 3 ? ['office-task'] : ['kanban-task', 'office-task'],
    input_schema: {
      type: 'object',
      properties: {
        [`field_${p}_${t}`]: { type: 'string', minLength: 1, maxLength: 200 },
        count: { type: 'integer', minimum: 0, maximum: 1000 },
        mode: { type: 'string', enum: ['fast', 'careful', `mode_${t}`] },
        when: { type: 'string', format: 'date-time' },
        tags: { type: 'array', items: { type: 'string' }, maxItems: 16 },
      },
      required: [`field_${p}_${t}`],
      additionalProperties: false,
    },
    annotations: { read_only_hint: t % 2 === 0, destructive_hint: false, idempotent_hint: true, open_world_hint: false },
  };
}

/** 200 active plugin records; `edition` changes one tool's description (one visible change). */
export function scaleRecords(edition: number): PluginRecord[] {
  return Array.from({ length: PLUGINS }, (_, p) => ({
    id: `vendor${p}.tools`,
    version: '1.0.0',
    status: 'active' as const,
    enabled: true,
    manifest: {
      api_version: 1 as const,
      id: `vendor${p}.tools`,
      version: '1.0.0',
      agent_tools: Array.from({ length: TOOLS }, (_, t) => declaration(p, t, edition)),
    },
    package_sha256: '0'.repeat(64),
    last_error: null,
    last_error_at: null,
    restart_count: 0,
    install_seq: p,
    installed_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
  }));
}

export interface ScaleFigures {
  tools: number;
  snapshotBytes: number;
  rebuildP50: number;
  inProcess: { firstApply: number; swapP50: number; swapCpuP50: number; decodeP50: number; deltaSwapP50: number };
  deltaBytes: number;
  agentctl: { launchToReady: number; putP50: number; putMax: number; toolsListP50: number; rssMb: number };
}

export async function measureScale(sandbox: ProcessSandbox): Promise<ScaleFigures> {
  // Catalog rebuild at the backend: every rebuild recomputes from the records.
  let state = initialCatalogState(GENERATION);
  const snapshots: CatalogSnapshot[] = [];
  const rebuilds: number[] = [];
  for (let edition = 0; edition < 12; edition++) {
    const records = scaleRecords(edition);
    let offered: ReturnType<typeof offerCatalog> | undefined;
    rebuilds.push(timedSync(() => (offered = offerCatalog(state, catalogTools(records, 'kandev')))));
    state = offered!.state;
    snapshots.push(offered!.snapshot);
  }
  const snapshotBytes = Buffer.byteLength(JSON.stringify(snapshots[0]));

  // The swap in-process: check + decide + build + swap, as agentctl runs it.
  const registry = new ToolRegistry();
  const session = new AgentctlSession({ task_id: 't', session_id: 's', workspace_id: 'w', surface: 'kanban-task' });
  const apply = new ApplySnapshot(registry, session, new HeldSchemaMemo(new AjvSchemaCompiler()), DEFAULT_SETTINGS, new SilentLogger());
  const expectApplied = (result: ReturnType<ApplySnapshot['execute']>): void => {
    if (!result.ok || result.outcome !== 'applied') throw new Error(`in-process apply: ${JSON.stringify(result).slice(0, 500)}`);
  };
  let result: ReturnType<ApplySnapshot['execute']> | undefined;
  const firstApply = timedSync(() => (result = apply.execute(snapshots[0])));
  expectApplied(result!);
  // A fresh copy each time, decoded from its text as a PUT body is (decoding timed apart); the
  // swap's CPU time too, from process.cpuUsage (the machine is shared).
  const decodes: number[] = [];
  const swapCpu: number[] = [];
  const swaps = snapshots.slice(1).map((snapshot) => {
    const text = JSON.stringify(snapshot);
    let fresh: unknown;
    decodes.push(timedSync(() => (fresh = parseSnapshotText(text))));
    const cpu = process.cpuUsage();
    const took = timedSync(() => (result = apply.execute(fresh)));
    const used = process.cpuUsage(cpu);
    swapCpu.push((used.user + used.system) / 1000);
    expectApplied(result!);
    return took;
  });

  // A one-tool change as it comes over the link: a delta on the revision held, parsed from its text.
  const deltaSwaps: number[] = [];
  let held = snapshots[snapshots.length - 1]!;
  let deltaBytes = 0;
  for (let edition = 12; edition < 24; edition++) {
    const offered = offerCatalog(state, catalogTools(scaleRecords(edition), 'kandev'));
    state = offered.state;
    const text = catalogPushPayloadText({ delta: catalogDelta(held, offered.snapshot)! });
    deltaBytes = Buffer.byteLength(text);
    held = offered.snapshot;
    let reply: ReturnType<ApplySnapshot['push']> | undefined;
    deltaSwaps.push(timedSync(() => (reply = apply.push(JSON.parse(text)))));
    if (!reply!.ok || reply!.answer.outcome !== 'applied') throw new Error(`delta apply: ${JSON.stringify(reply).slice(0, 500)}`);
  }

  // A real agentctl process, launched with the whole catalog, then swapped over HTTP.
  const agentctl = await launchAgentctl(sandbox, 'scale', snapshots[0]!);
  try {
    const ready = { control_url: agentctl.controlUrl, mcp_url: agentctl.mcpUrl };
    const launchToReady = agentctl.launchMs;
    const put = async (snapshot: CatalogSnapshot): Promise<void> => {
      const response = await fetch(`${ready.control_url}/api/v1/mcp/plugin-tools`, {
        method: 'PUT',
        headers: { authorization: `Bearer ${STANDALONE_TOKENS.control}`, 'content-type': 'application/json' },
        body: JSON.stringify(snapshot),
      });
      const body = (await response.json()) as { outcome?: string };
      if (body.outcome !== 'applied') throw new Error(`PUT answered ${response.status} ${JSON.stringify(body)}`);
    };
    const puts: number[] = [];
    for (const snapshot of snapshots.slice(1)) puts.push(await timed(() => put(snapshot)));
    const agent = await connectAgent(ready.mcp_url, STANDALONE_TOKENS.mcp, 'bench-agent');
    const lists: number[] = [];
    for (let i = 0; i < 25; i++) {
      lists.push(
        await timed(async () => {
          const { tools } = await agent.client.listTools();
          if (tools.length < 2000) throw new Error(`tools/list gave ${tools.length} tools`);
        }),
      );
    }
    await agent.close();
    return {
      tools: snapshots[0]!.tools.length,
      snapshotBytes,
      rebuildP50: median(rebuilds.slice(1)),
      inProcess: { firstApply, swapP50: median(swaps), swapCpuP50: median(swapCpu), decodeP50: median(decodes), deltaSwapP50: median(deltaSwaps.slice(2)) },
      deltaBytes,
      agentctl: { launchToReady, putP50: median(puts), putMax: Math.max(...puts), toolsListP50: median(lists.slice(5)), rssMb: rssMb(agentctl.pid) },
    };
  } finally {
    await agentctl.stop();
  }
}
