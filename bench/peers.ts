/**
 * Side by side with the gateways a user would pick instead (issue 31): the mcpserver part's
 * stdio echo server (bench/mcp-echo-server.ts, the SDK's `McpServer`) fronted by Toolport (an
 * `mcp-stdio` plugin: agent → agentctl → backend → plugin), mcp-hub, supergateway (stateful
 * Streamable HTTP) and mcp-proxy, each with its defaults, next to the MCP floor with no gateway
 * at all (the SDK's own server over Streamable HTTP, bench/floor-servers.ts). One client for all:
 * the official SDK v1 over Streamable HTTP, its listening GET stream open — except mcp-hub,
 * whose `/mcp` serves only the older HTTP+SSE transport, so its client is the same SDK's SSE
 * transport. Serial calls take one call per target per round in a random order (see PLAN for
 * the CPU blocks and 32 in flight). CPU is each target's whole process tree (gateway, shells, the
 * echo server; Toolport's backend, agentctl and plugin processes), from /proc.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { SSEClientTransport } from '@modelcontextprotocol/sdk/client/sse.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { eventually } from '../test/support/eventually';
import { ProcessRun } from '../test/support/processes/process-run';
import { killMentioning, waitForNoProcesses } from '../test/support/processes/process-sweep';
import { REPO_ROOT } from '../test/support/processes/toolport-paths';
import type { FloorServers } from './hops';
import { ensureMcpServerPlugin, MCP_ECHO_TOOL } from './mcp-server';
import { commandLine, cpuMeter, listeningPorts, processTrees } from './proc';
import { alternating, spread, throughput, type Spread } from './stats';
import type { BenchWorld } from './world';

export const PEERS = ['mcp-hub', 'supergateway', 'mcp-proxy'] as const;
export type Peer = (typeof PEERS)[number];
export type PeerTarget = 'no gateway' | 'Toolport' | Peer;

export interface PeerTargetFigures {
  /** The package and version, or what Toolport and the floor are. */
  what: string;
  transport: 'Streamable HTTP' | 'HTTP+SSE';
  /** One call at a time, ms. */
  serial: Spread;
  callsPerSecond32: number;
  /** CPU (user + system) of the whole process tree per call, ms: one call at a time (in blocks), and at 32 in flight. */
  cpuPerCall: { serial: number; inFlight32: number };
  /** The serial CPU per call by process (its root's name, `plugin <id>`, `echo server`, `shell`), ms. */
  cpuPerCallByProcess: Record<string, number>;
  processes: number;
  /** The client's listening stream (the GET of Streamable HTTP, the SSE stream of HTTP+SSE) was open while it called. */
  listeningStream: boolean;
}

export interface PeersFigures {
  rounds: number;
  /** Calls each target's one-at-a-time CPU figure is over. */
  cpuCalls: number;
  calls32: number;
  targets: Partial<Record<PeerTarget, PeerTargetFigures>>;
  /** A peer that could not be started or called, and why. */
  failed: Partial<Record<Peer, string>>;
  loadAverage: { before: number; after: number };
}

/**
 * Latency from interleaved rounds; CPU from blocks of one-at-a-time calls to one target at a time
 * (so its meter counts its calls and not the time it sat idle while the others were called);
 * then 32 in flight. Blocks and 32-in-flight runs alternate the targets in passes (more, shorter
 * ones for 32 in flight, whose runs are otherwise minutes apart on a drifting machine).
 */
const PLAN = { warmup: 100, rounds: 400, blockPasses: 2, block: 200, flightPasses: 4, callsPerPass: 256 };

interface Target {
  what: string;
  transport: PeerTargetFigures['transport'];
  call(n: number): Promise<void>;
  listening(): boolean;
  /** The roots of its process trees, named (the trees are read once it serves: stateful gateways spawn the server per session). */
  roots: ReadonlyMap<number, string>;
  close(): Promise<void>;
}

function checkedCall(call: (n: number) => Promise<CallToolResult>, what: string) {
  return async (n: number): Promise<void> => {
    const result = await call(n);
    const first = result.content[0];
    const text = first?.type === 'text' ? first.text : undefined;
    if (result.isError || text !== `v${n}`) throw new Error(`${what} answered ${JSON.stringify(result.content)}`);
  };
}

function version(pkg: string): string {
  return (JSON.parse(readFileSync(join(REPO_ROOT, 'node_modules', pkg, 'package.json'), 'utf8')) as { version: string }).version;
}

/** A free port on 127.0.0.1, for mcp-hub, which will not start on port 0. */
async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/**
 * Starts a gateway from its package's bin in its own folder (the sweep's marker) and process
 * group (so a stop reaches the servers it spawned); the stop waits for all of them to be gone.
 */
function spawnGateway(world: BenchWorld, peer: Peer, dir: string, bin: string, args: string[], env: NodeJS.ProcessEnv = {}) {
  const base = { PATH: process.env.PATH, ...(process.env.NODE_OPTIONS ? { NODE_OPTIONS: process.env.NODE_OPTIONS } : {}) };
  const run = world.track(
    new ProcessRun(process.execPath, [join(REPO_ROOT, 'node_modules', peer, bin), ...args], {
      env: { ...base, ...env },
      cwd: dir,
      detached: true,
      stdout: 'ignore',
    }),
  );
  const stop = async (): Promise<void> => {
    run.signal('SIGTERM');
    const exited = await Promise.race([run.exited.then(() => true), new Promise<false>((resolve) => setTimeout(() => resolve(false), 5000).unref())]);
    if (!exited) await run.stop('SIGKILL');
    // What it spawned leaves with it (SIGTERM to the group); anything still there is killed.
    if ((await waitForNoProcesses(dir, 3000)).length > 0) {
      killMentioning(dir);
      await waitForNoProcesses(dir, 3000);
    }
  };
  return { run, stop };
}

/** A gateway's target: the client's calls, and a close that closes the client, then stops the gateway. */
function gatewayTarget(what: string, transport: Target['transport'], peer: Peer, client: PeerClient, gateway: ReturnType<typeof spawnGateway>): Target {
  return {
    what,
    transport,
    call: client.call,
    listening: client.listening,
    roots: new Map([[gateway.run.pid, peer]]),
    close: async () => {
      await client.close();
      await gateway.stop();
    },
  };
}

/** `error` with the last of what the gateway wrote on stderr, on one line (the reason it is left out). */
function withOutput(error: unknown, run: ProcessRun): Error {
  const said = run.stderr().trim().split('\n').slice(-3).join(' | ');
  const message = (error instanceof Error ? error.message : String(error)).split('\n')[0]!;
  return new Error(said ? `${message} (its stderr: ${said.slice(-400)})` : message);
}

interface PeerClient {
  call(n: number): Promise<void>;
  listening(): boolean;
  close(): Promise<void>;
}

/**
 * The official SDK v1 client on `url` (Streamable HTTP, or HTTP+SSE where that is all a gateway
 * serves), its fetches watched for the listening stream: a GET answered with an event stream.
 * Calls `tool`, or the one tool named `echo` or `<server>__echo` (mcp-hub's names).
 */
async function connectClient(url: string, what: string, options: { sse?: boolean; token?: string; tool?: string } = {}): Promise<PeerClient> {
  let listening = false;
  const watched: FetchLike = async (input, init) => {
    const response = await fetch(input, init);
    const method = init?.method ?? 'GET';
    if (method === 'GET' && response.ok && response.headers.get('content-type')?.includes('text/event-stream')) listening = true;
    return response;
  };
  const requestInit = options.token ? { headers: { Authorization: `Bearer ${options.token}` } } : undefined;
  const client = new Client({ name: 'bench-peers', version: '1.0.0' });
  const transport = options.sse
    ? new SSEClientTransport(new URL(url), { fetch: watched, requestInit })
    : new StreamableHTTPClientTransport(new URL(url), { fetch: watched, requestInit });
  await client.connect(transport);
  const tools = (await client.listTools()).tools.map((tool) => tool.name);
  const tool = options.tool ?? tools.find((name) => name === 'echo' || name.endsWith('__echo'));
  if (!tool || !tools.includes(tool)) throw new Error(`${what} lists ${JSON.stringify(tools)}, no ${options.tool ?? 'echo'}`);
  return {
    call: checkedCall(async (n) => (await client.callTool({ name: tool, arguments: { value: `v${n}` } })) as CallToolResult, what),
    listening: () => listening,
    async close() {
      if (transport instanceof StreamableHTTPClientTransport) await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

async function startPeer(world: BenchWorld, peer: Peer, server: string): Promise<Target> {
  const dir = join(world.root, 'peers', peer);
  mkdirSync(dir, { recursive: true });
  const node = process.execPath;
  const what = `${peer} ${version(peer)}`;
  if (peer === 'supergateway' || peer === 'mcp-proxy') {
    const args =
      peer === 'supergateway'
        ? ['--stdio', `${node} ${server}`, '--outputTransport', 'streamableHttp', '--stateful', '--port', '0', '--logLevel', 'none']
        : ['--host', '127.0.0.1', '--port', '0', '--server', 'stream', '--', node, server];
    const bin = peer === 'supergateway' ? 'dist/index.js' : 'dist/bin/mcp-proxy.mjs';
    const gateway = spawnGateway(world, peer, dir, bin, args);
    try {
      const port = await eventually(
        () => {
          if (!gateway.run.running) throw new Error(`${peer} exited before it listened`);
          return listeningPorts(gateway.run.pid)[0];
        },
        20_000,
        `${peer} listening`,
        { everyMs: 20 },
      );
      const client = await connectClient(`http://127.0.0.1:${port}/mcp`, peer);
      return gatewayTarget(what, 'Streamable HTTP', peer, client, gateway);
    } catch (error) {
      await gateway.stop();
      throw withOutput(error, gateway.run);
    }
  }
  // mcp-hub: a config file naming the server, its state and caches in its own folder.
  const config = join(dir, 'mcp-servers.json');
  writeFileSync(config, JSON.stringify({ mcpServers: { echo: { command: node, args: [server] } } }));
  const port = await freePort();
  const xdg = {
    HOME: dir,
    XDG_STATE_HOME: join(dir, 'state'),
    XDG_CONFIG_HOME: join(dir, 'config'),
    XDG_DATA_HOME: join(dir, 'data'),
    XDG_CACHE_HOME: join(dir, 'cache'),
  };
  // A fresh marketplace catalog in its cache, so its start does not fetch one from the network
  // (it reads only that the catalog is under an hour old and lists a server).
  const cache = join(xdg.XDG_DATA_HOME, 'mcp-hub', 'cache');
  mkdirSync(cache, { recursive: true });
  const registry = { version: 'bench', generatedAt: Date.now(), totalServers: 1, servers: [{ id: 'none', name: 'none' }] };
  writeFileSync(join(cache, 'registry.json'), JSON.stringify({ registry, lastFetchedAt: Date.now(), serverDocumentation: {} }));
  const gateway = spawnGateway(world, peer, dir, 'dist/cli.js', ['--port', String(port), '--config', config], xdg);
  try {
    await eventually(
      async () => {
        const health = (await (await fetch(`http://127.0.0.1:${port}/api/health`)).json()) as { servers?: Array<{ status: string }> };
        return health.servers?.[0]?.status === 'connected';
      },
      30_000,
      'mcp-hub connected to the echo server',
      { everyMs: 50, retryErrors: true },
    );
    const client = await connectClient(`http://127.0.0.1:${port}/mcp`, peer, { sse: true });
    return gatewayTarget(what, 'HTTP+SSE', peer, client, gateway);
  } catch (error) {
    await gateway.stop();
    throw withOutput(error, gateway.run);
  }
}

const sum = (values: readonly number[]): number => values.reduce((a, b) => a + b, 0);

/** What a process of a target is, for the CPU breakdown. */
function roleOf(pid: number, roots: ReadonlyMap<number, string>): string {
  const root = roots.get(pid);
  if (root) return root;
  const command = commandLine(pid);
  const plugin = /\/plugins\/([^/]+)\//.exec(command);
  if (plugin) return `plugin ${plugin[1]}`;
  if (command.startsWith('/bin/sh')) return 'shell';
  if (command.endsWith('main.js')) return 'echo server';
  return command.split(' ')[0] || 'ended';
}

function byRole(pids: readonly number[], cpu: readonly number[], roots: ReadonlyMap<number, string>): Record<string, number> {
  const roles: Record<string, number> = {};
  pids.forEach((pid, i) => {
    const role = roleOf(pid, roots);
    roles[role] = (roles[role] ?? 0) + cpu[i]!;
  });
  return roles;
}

export async function measurePeers(world: BenchWorld, floors: FloorServers): Promise<PeersFigures> {
  const server = join(await ensureMcpServerPlugin(world), 'main.js');
  const session = world.sessions[0]!;
  const agentctlPid = await world.agentctlPid(session.sessionId);
  const floor = await connectClient(floors.mcpUrl, 'the floor');
  const toolport = await connectClient(session.mcp.url, 'Toolport', { token: session.mcp.token, tool: MCP_ECHO_TOOL });
  const targets = new Map<PeerTarget, Target>([
    [
      'no gateway',
      {
        what: 'the SDK v1 low-level Server over Streamable HTTP',
        transport: 'Streamable HTTP',
        ...floor,
        roots: new Map([[floors.pid, 'floor server']]),
      },
    ],
    [
      'Toolport',
      {
        what: 'Toolport: mcp-stdio plugin behind backend + agentctl',
        transport: 'Streamable HTTP',
        ...toolport,
        roots: new Map([
          [world.backend.pid, 'backend'],
          [agentctlPid, 'agentctl'],
        ]),
      },
    ],
  ]);
  const failed: PeersFigures['failed'] = {};
  try {
    for (const peer of PEERS) {
      try {
        targets.set(peer, await startPeer(world, peer, server));
      } catch (error) {
        failed[peer] = error instanceof Error ? error.message : String(error);
        process.stderr.write(`bench: peers: ${peer} left out: ${failed[peer]}\n`);
      }
    }
    const names = [...targets.keys()];
    const calls = names.map((name) => targets.get(name)!.call);
    await alternating(PLAN.warmup, calls);
    const pids = names.map((name) => processTrees(...targets.get(name)!.roots.keys()));
    const before = loadavg()[0]!;
    const serial = await alternating(PLAN.rounds, calls);

    const blockCpu = pids.map((tree) => tree.map(() => 0));
    const seconds = names.map(() => 0);
    const cpu32 = names.map(() => 0);
    const shuffled = () => names.map((_, i) => i).sort(() => Math.random() - 0.5);
    for (let pass = 0; pass < PLAN.blockPasses; pass++) {
      for (const i of shuffled()) {
        const read = cpuMeter(pids[i]!);
        for (let n = 0; n < PLAN.block; n++) await calls[i]!(n);
        read().forEach((ms, p) => (blockCpu[i]![p]! += ms));
      }
    }
    for (let pass = 0; pass < PLAN.flightPasses; pass++) {
      for (const i of shuffled()) {
        const read = cpuMeter(pids[i]!);
        seconds[i]! += PLAN.callsPerPass / (await throughput(32, PLAN.callsPerPass, calls[i]!));
        cpu32[i]! += sum(read());
      }
    }
    const serialCpu = blockCpu.map((tree) => tree.map((ms) => ms / (PLAN.blockPasses * PLAN.block)));
    const total32 = PLAN.flightPasses * PLAN.callsPerPass;
    const figures: PeersFigures['targets'] = {};
    names.forEach((name, i) => {
      const target = targets.get(name)!;
      figures[name] = {
        what: target.what,
        transport: target.transport,
        serial: spread(serial[i]!),
        callsPerSecond32: total32 / seconds[i]!,
        cpuPerCall: { serial: sum(serialCpu[i]!), inFlight32: cpu32[i]! / total32 },
        cpuPerCallByProcess: byRole(pids[i]!, serialCpu[i]!, target.roots),
        processes: pids[i]!.length,
        listeningStream: target.listening(),
      };
    });
    return {
      rounds: PLAN.rounds,
      cpuCalls: PLAN.blockPasses * PLAN.block,
      calls32: total32,
      targets: figures,
      failed,
      loadAverage: { before, after: loadavg()[0]! },
    };
  } finally {
    for (const target of targets.values()) await target.close().catch(() => undefined);
  }
}
