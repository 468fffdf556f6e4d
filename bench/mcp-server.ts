/**
 * An MCP server plugin's call beside a gRPC plugin's (issue 28; docs/plugin-protocol.md §16):
 * the official SDK's `McpServer` with one `echo` tool, installed in the bench's backend as an
 * `mcp-stdio` plugin, called through the first session's agent, and the gRPC echo plugin's
 * echo (mutual TLS, and its plaintext copy) through the same agent. The same server is also called straight over its stdio with the
 * official client (no Toolport: the server's floor). The four sides take one call each per
 * round, in a random order each round, so the drifting load of a shared machine falls on all
 * alike.
 */
import { buildSync } from 'esbuild';
import { mkdirSync, writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { stringify } from 'yaml';
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { eventually } from '../test/support/eventually';
import { REPO_ROOT } from '../test/support/processes/toolport-paths';
import { alternating, cpuMs, pairedDifferenceP50, spread, type Spread } from './stats';
import { ECHO_PLUGIN, ECHO_TOOL, PLAIN_ECHO_PLUGIN, PLAIN_ECHO_TOOL, type BenchWorld } from './world';

export const MCP_SERVER_PLUGIN = 'bench.mcp';
export const MCP_ECHO_TOOL = 'kandev_bench_mcp_echo';

export interface McpServerCost {
  rounds: number;
  /** The full path to the MCP server plugin's echo. */
  mcpServer: Spread;
  /** The full path to the gRPC echo plugin's echo (mutual TLS, as the hops part's full path). */
  grpc: Spread;
  /** The full path to the plaintext copy of the gRPC echo plugin (what mutual TLS costs the gRPC side). */
  grpcPlaintext: Spread;
  /** Median of (MCP server call − gRPC call) over the rounds. */
  pairedDifferenceP50: number;
  /** The same server's echo over its stdio with the official client, no Toolport. */
  stdioFloor: Spread;
  /** CPU time (user + system) each plugin process spent per call over the timed rounds, ms. */
  pluginCpuPerCall: { mcpServer: number; grpc: number; grpcPlaintext: number };
  /** The 1-minute load average before and after the timed rounds. */
  loadAverage: { before: number; after: number };
}

/** Writes the server's package: its bundled `main.js` and an `mcp-stdio` manifest. */
function writeServerPackage(dir: string): string {
  mkdirSync(dir, { recursive: true });
  buildSync({
    entryPoints: [join(REPO_ROOT, 'bench', 'mcp-echo-server.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: join(dir, 'main.js'),
    logLevel: 'error',
  });
  const manifest = {
    api_version: 1,
    id: MCP_SERVER_PLUGIN,
    version: '1.0.0',
    runtime: { type: 'mcp-stdio', command: 'node', args: ['${package}/main.js'], surfaces: ['kanban-task'] },
  };
  writeFileSync(join(dir, 'manifest.yaml'), stringify(manifest));
  return dir;
}

/**
 * The MCP server plugin installed in the world's backend and in the first session's tools, once
 * (the peers part fronts the same server with other gateways); answers its package folder, whose
 * `main.js` is the server.
 */
export async function ensureMcpServerPlugin(world: BenchWorld): Promise<string> {
  const dir = join(world.root, MCP_SERVER_PLUGIN);
  if (!installed.has(world)) {
    writeServerPackage(dir);
    await world.install(dir);
    installed.add(world);
  }
  const agent = world.sessions[0]!.agent;
  await eventually(async () => (await agent.toolNames()).includes(MCP_ECHO_TOOL), 10_000, `${MCP_ECHO_TOOL} in the session's tools`, { everyMs: 20 });
  return dir;
}

const installed = new WeakSet<BenchWorld>();

export async function measureMcpServer(world: BenchWorld, rounds = 1000, warmup = 200): Promise<McpServerCost> {
  const dir = await ensureMcpServerPlugin(world);
  const agent = world.sessions[0]!.agent;

  const direct = new Client({ name: 'bench-stdio-floor', version: '1.0.0' });
  await direct.connect(new StdioClientTransport({ command: process.execPath, args: [join(dir, 'main.js')], stderr: 'inherit' }));
  try {
    const floorCall = async (n: number): Promise<void> => {
      const result = (await direct.callTool({ name: 'echo', arguments: { value: `v${n}` } })) as { content: Array<{ text?: string }> };
      if (result.content[0]?.text !== `v${n}`) throw new Error(`the server answered ${JSON.stringify(result.content)}`);
    };
    const sides = [agentCall(agent, MCP_ECHO_TOOL), agentCall(agent, ECHO_TOOL), agentCall(agent, PLAIN_ECHO_TOOL), floorCall];
    const [serverPid] = world.pluginPids(MCP_SERVER_PLUGIN);
    if (serverPid === undefined) throw new Error(`no running process of ${MCP_SERVER_PLUGIN}`);
    const pids = [serverPid, (await world.echoPlugin(ECHO_PLUGIN)).pid, (await world.echoPlugin(PLAIN_ECHO_PLUGIN)).pid];
    await alternating(warmup, sides);
    const before = loadavg()[0]!;
    const cpuBefore = pids.map(cpuMs);
    const [mcp, grpc, plain, floor] = (await alternating(rounds, sides)) as [number[], number[], number[], number[]];
    const [serverCpu, grpcCpu, plainCpu] = pids.map((pid, i) => (cpuMs(pid) - cpuBefore[i]!) / rounds) as [number, number, number];
    return {
      rounds,
      mcpServer: spread(mcp),
      grpc: spread(grpc),
      grpcPlaintext: spread(plain),
      pairedDifferenceP50: pairedDifferenceP50(mcp, grpc),
      stdioFloor: spread(floor),
      pluginCpuPerCall: { mcpServer: serverCpu, grpc: grpcCpu, grpcPlaintext: plainCpu },
      loadAverage: { before, after: loadavg()[0]! },
    };
  } finally {
    await direct.close();
  }
}

function agentCall(agent: McpAgent, tool: string) {
  return async (n: number): Promise<void> => {
    const result = await agent.call(tool, { value: `v${n}` });
    const text = (result.content as Array<{ text?: string }>)[0]?.text;
    if (result.isError || text !== `v${n}`) throw new Error(`${tool} answered ${JSON.stringify(result.content)}`);
  };
}
