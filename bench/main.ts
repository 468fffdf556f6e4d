/**
 * `npm run bench`: Toolport's side-by-side benchmarks in one run (see README "Performance").
 * Prints a table and writes bench/results.json. Targets are reported, never asserted.
 * `npm run bench -- --only=hops,fanout,scale` runs a subset (for profiling; results.json is
 * then left alone, unless `--merge` puts the subset's figures in it over their earlier ones;
 * `--raw=<file>` writes the run's raw figures there).
 */
import { measureApprovalCost } from './approvals';
import { measureSandbox } from './sandbox';
import { measureScopes } from './scopes';
import { readFileSync, writeFileSync } from 'node:fs';
import { cpus, totalmem } from 'node:os';
import { join } from 'node:path';
import { REPO_ROOT } from '../test/support/processes/toolport-paths';
import { measureFanOut } from './fan-out';
import { measureHostHop } from './host-hop';
import { measureLeanAgentctl } from './lean-agentctl';
import { measureLinkedSessions, type LinkedSessionsFigures } from './linked-sessions';
import { measureHops, startFloorServers, type FloorServers } from './hops';
import { MCP_HOP_SIDES, measureMcpHop } from './mcp-hop';
import { measureMcpServer } from './mcp-server';
import { measurePeers, PEERS, type PeerTarget } from './peers';
import { measureScale } from './scale';
import { measureStore } from './store';
import { measureReplicas } from './replicas';
import { median, round, rssMb } from './stats';
import { measureTlsCost } from './tls-cost';
import { fullPathBlocks } from './warm-up';
import { measurePaired } from './paired';
import { measureTraceCost } from './trace-cost';
import { BenchWorld, PLAIN_ECHO_PLUGIN } from './world';

interface Row {
  metric: string;
  value: number;
  unit: string;
  target?: string;
  met?: boolean;
}

const ALL_PARTS = [
  'mcphop',
  'hops',
  'host',
  'lean',
  'mcpserver',
  'peers',
  'traces',
  'approvals',
  'fanout',
  'links',
  'scopes',
  'scale',
  'store',
  'sandbox',
  'replicas',
];

/** agentctl's MCP hop (get_task_context, p50) before it served 2026-07-28, from the README. */
const TODAY_2025_HOP_MS = 1.97;

class Report {
  readonly rows: Row[] = [];
  readonly raw: Record<string, unknown> = {};
  readonly phases: Record<string, number> = {};

  add(metric: string, value: number, unit: string, target?: { text: string; met: boolean }): void {
    this.rows.push({ metric, value: round(value), unit, ...(target ? { target: target.text, met: target.met } : {}) });
  }

  async phase<T>(name: string, fn: () => Promise<T>): Promise<T> {
    const started = performance.now();
    process.stderr.write(`bench: ${name}…\n`);
    try {
      return await fn();
    } finally {
      this.phases[name] = round((performance.now() - started) / 1000, 1);
    }
  }
}

/** The standalone agentctl file alone in an empty folder: its size and resident memory (issue 31). */
async function leanPart(report: Report, world: BenchWorld): Promise<void> {
  const lean = await report.phase('standalone agentctl file', () => measureLeanAgentctl(world));
  report.raw.leanAgentctl = lean;
  report.add('standalone agentctl file (dist/agentctl.js) size', lean.fileKb, 'KB');
  report.add('memory: standalone agentctl file RSS, idle', lean.idleMb, 'MB', { text: '≤ 50 MB', met: lean.idleMb <= 50 });
  report.add('memory: standalone agentctl file RSS, idle, settled', lean.idleSettledMb, 'MB');
  report.add(`memory: standalone agentctl file RSS, after ${lean.calls} calls`, lean.afterCallsMb, 'MB', { text: '≤ 60 MB', met: lean.afterCallsMb <= 60 });
  report.add(`memory: standalone agentctl file RSS, after ${lean.calls} calls, settled`, lean.afterCallsSettledMb, 'MB');
  report.add('standalone agentctl file: its CPU per call over those calls', lean.cpuPerCallMs, 'ms');
}

async function hopsPart(report: Report, world: BenchWorld, floors: FloorServers, plugin: { port: number; pid: number }): Promise<void> {
  const pids = { backend: world.backend.pid, agentctl: await world.agentctlPid(world.sessions[0]!.sessionId), plugin: plugin.pid };
  const hops = await report.phase('hops', () => measureHops({ pluginPort: plugin.port, floors, fullAgent: world.sessions[0]!.agent, pids }));
  report.raw.hops = hops;
  const floorSum = hops.grpc.p50 + hops.mcp.p50 + hops.ws.p50;
  report.add('floor: grpc-js unary to a plaintext SDK plugin, p50', hops.grpc.p50, 'ms');
  report.add('floor: MCP SDK Server, Streamable HTTP, p50', hops.mcp.p50, 'ms');
  report.add('floor: ws JSON round trip, p50', hops.ws.p50, 'ms');
  report.add('floors summed, p50', floorSum, 'ms');
  report.add('agentctl MCP hop alone (get_task_context), p50', hops.builtin.p50, 'ms');
  report.add('full path: agent → agentctl → backend → plugin, p50', hops.full.p50, 'ms');
  report.add('full path, p95', hops.full.p95, 'ms');

  const ratio = hops.full.p50 / floorSum;
  report.add('full path p50 / floors summed', ratio, '×', { text: '≤ 1.3×', met: ratio <= 1.3 });
  for (const hop of ['grpc', 'mcp', 'ws', 'builtin', 'full'] as const) report.add(`throughput, 32 in flight: ${hop}`, hops[hop].throughput32, 'calls/s');
  const share = hops.full.throughput32 / hops.mcp.throughput32;
  report.add('throughput, 32 in flight: full path / MCP floor', share * 100, '%', { text: '≥ 70 %', met: share >= 0.7 });
  const summed = (hop: 'mcp' | 'full') => Object.values(hops[hop].cpuPerCall32).reduce((sum, ms) => sum + ms, 0);
  for (const hop of ['mcp', 'full'] as const) {
    for (const [name, ms] of Object.entries(hops[hop].cpuPerCall32)) report.add(`throughput, 32 in flight: ${hop}: CPU per call, ${name}`, ms, 'ms');
    report.add(`throughput, 32 in flight: ${hop}: CPU per call, all its processes`, summed(hop), 'ms');
  }
  report.add('throughput, 32 in flight: MCP floor CPU per call / full path CPU per call', (summed('mcp') / summed('full')) * 100, '%');
  const tls = await report.phase('mutual TLS vs plaintext', () => measureTlsCost(world.sessions[0]!.agent));
  report.raw.tlsCost = tls;
  const slower = (tls.tls.p50 / tls.plaintext.p50 - 1) * 100;
  report.add(`full path, plugin over mutual TLS (${tls.rounds} calls alternating with plaintext), p50`, tls.tls.p50, 'ms');
  report.add('full path, the same plugin in plaintext, p50', tls.plaintext.p50, 'ms');
  report.add('full path: mutual TLS over plaintext, p50', slower, '% slower', { text: '≤ 10 %', met: slower <= 10 });
  report.add('full path: mutual TLS − plaintext, paired calls, p50', tls.pairedDifferenceP50, 'ms');
  report.add('throughput, 32 in flight: plugin over mutual TLS', tls.throughput32.tls, 'calls/s');
  report.add('throughput, 32 in flight: the same plugin in plaintext', tls.throughput32.plaintext, 'calls/s');
}

/**
 * The full path from a fresh backend and agentctl, block by block (`--only=warmup`, not in the
 * default run): why a part that times its calls early measures slower code (bench/PROFILE.md §12).
 */
async function warmupPart(report: Report, world: BenchWorld): Promise<void> {
  const blocks = await report.phase('warm-up', () => fullPathBlocks(world, 40, 50));
  report.raw.warmup = blocks;
  for (const [from, to] of [
    [0, 4],
    [4, 10],
    [10, 20],
    [30, 40],
  ] as const) {
    const part = blocks.slice(from, to);
    const cpu = part.reduce((sum, b) => sum + b.cpuPerCall, 0) / part.length;
    report.add(`warm-up: calls ${from * 50 + 1}–${to * 50} from a fresh backend: backend + agentctl CPU per call`, cpu, 'ms');
    report.add(`warm-up: calls ${from * 50 + 1}–${to * 50}: p50 of the blocks' p50s`, median(part.map((b) => b.p50)), 'ms');
  }
}

/**
 * This build beside another (`BENCH_BASELINE_REF=<commit> npm run bench -- --only=paired`): a
 * fix's before/after on one machine load. Not in the default run.
 */
async function pairedPart(report: Report, world: BenchWorld): Promise<void> {
  const f = await report.phase('paired with a baseline build', () => measurePaired(world));
  if (!f) throw new Error('the paired part needs BENCH_BASELINE_REF (a commit to compare this build with)');
  report.raw.paired = f;
  const base = f.commit.slice(0, 8);
  report.add(`paired: full path (plaintext plugin), this build, p50 of ${f.rounds} alternating`, f.current.p50, 'ms');
  report.add(`paired: full path, build ${base}, p50`, f.baseline.p50, 'ms');
  report.add(`paired: this build − ${base}, paired calls, p50`, f.pairedDifferenceP50, 'ms');
  for (const side of ['backend', 'agentctl'] as const) {
    report.add(`paired: ${side} CPU per call, this build`, f.current.cpuPerCall[side], 'ms');
    report.add(`paired: ${side} CPU per call, build ${base}`, f.baseline.cpuPerCall[side], 'ms');
  }
}

async function hostPart(report: Report, world: BenchWorld): Promise<void> {
  const host = await report.phase('host api', () => measureHostHop(world.sessions[0]!.agent));
  report.raw.host = host;
  report.add('Host API: GetState round trip from the plugin (unix socket), p50', host.getState.p50, 'ms');
  report.add('Host API: GetState round trip, p95', host.getState.p95, 'ms');
  report.add('full path: plain tool call, p50', host.plainCall.p50, 'ms');
  report.add('full path: tool call doing one GetState, p50', host.stateCall.p50, 'ms');
  report.add('full path: one GetState adds, p50', host.stateCall.p50 - host.plainCall.p50, 'ms');
}

async function tracesPart(report: Report): Promise<void> {
  const cost = await report.phase('tracing on vs off', () => measureTraceCost());
  report.raw.traceCost = cost;
  const slower = (cost.on.p50 / cost.off.p50 - 1) * 100;
  report.add(`full path, tracing on (OTLP http/protobuf to a local receiver; ${cost.rounds} calls alternating with off), p50`, cost.on.p50, 'ms');
  report.add('full path, tracing off (no OTEL variable), p50', cost.off.p50, 'ms');
  report.add('full path: tracing on / off, p50', cost.on.p50 / cost.off.p50, '×');
  report.add('full path: tracing on over off, p50', slower, '% slower', { text: '< 10 %', met: slower < 10 });
  report.add('full path: tracing on − off, paired calls, p50', cost.pairedDifferenceP50, 'ms');
  if (cost.before) {
    const offOver = (cost.off.p50 / cost.before.p50 - 1) * 100;
    report.add(`full path, the build before tracing (${cost.before.commit.slice(0, 8)}), p50`, cost.before.p50, 'ms');
    report.add('full path: tracing off over the build before tracing, p50', offOver, '% slower');
    report.add('full path: tracing off − the build before, paired calls, p50', cost.offOverBeforeP50 ?? Number.NaN, 'ms');
    report.add('CPU per call, backend + agentctl, the build before tracing', cost.cpuPerCall.before ?? Number.NaN, 'ms');
  }
  report.add('CPU per call, backend + agentctl, tracing off', cost.cpuPerCall.off, 'ms');
  report.add('CPU per call, backend + agentctl, tracing on', cost.cpuPerCall.on, 'ms');
  const cpuOver = cost.cpuPerCall.on - cost.cpuPerCall.off;
  report.add('CPU per call, backend + agentctl: tracing on − off', cpuOver, 'ms', { text: '< 0.3 ms', met: cpuOver < 0.3 });
  const young = cost.warmup.cpuPerCall;
  report.add(`CPU per call over the first ${cost.warmup.rounds} calls of fresh processes, tracing off`, young.off, 'ms');
  report.add(`CPU per call over the first ${cost.warmup.rounds} calls of fresh processes, tracing on`, young.on, 'ms');
  report.add('tracing on: OTLP requests received', cost.exported.requests, 'requests');
  report.add("tracing on: the adapter's span work per call, in-process (agentctl + backend)", cost.otelUsPerCall.spans, 'µs');
  report.add('tracing on: the same with the OTLP protobuf serialisation of each batch', cost.otelUsPerCall.serialised, 'µs');
  const offShare = (cost.silentNsPerCall / 1e6 / cost.off.p50) * 100;
  report.add('tracing off: silent tracer work per call (agentctl + backend)', cost.silentNsPerCall, 'ns');
  report.add('tracing off: that work over the full path p50', offShare, '%', { text: '< 0.1 %', met: offShare < 0.1 });
}

async function approvalsPart(report: Report, world: BenchWorld): Promise<void> {
  const cost = await report.phase('approval rules', () => measureApprovalCost(world));
  report.raw.approvalCost = cost;
  const over = (cost.unmatchedRule.p50 / cost.noRules.p50 - 1) * 100;
  report.add(`full path, no approval rules (${cost.calls} calls in blocks of 30, A B B A order), p50`, cost.noRules.p50, 'ms');
  report.add('full path, one approval rule that does not match, p50', cost.unmatchedRule.p50, 'ms');
  report.add('full path: an unmatched approval rule over none, p50', over, '% slower', { text: '≤ 2 %', met: over <= 2 });
  const share = (cost.checkNsPerCall / 1e6 / cost.noRules.p50) * 100;
  report.add('approval rule check per call (one unmatched rule)', cost.checkNsPerCall, 'ns');
  report.add('approval rule check: that work over the full path p50', share, '%');
}

async function mcpHopPart(report: Report, world: BenchWorld, floors: FloorServers): Promise<void> {
  const hop = await report.phase('mcp hop', () => measureMcpHop(world, floors));
  report.raw.mcpHop = hop;
  for (const side of MCP_HOP_SIDES) {
    const call = side.startsWith('floor') ? 'tools/call echo' : 'get_task_context';
    const list = side.startsWith('floor') ? 'tools/list (1 tool)' : 'tools/list (built-ins)';
    // Today's 2025 figure (README Performance) is the bar both eras of agentctl must meet.
    const target = side.startsWith('agentctl') ? { text: `≤ ${TODAY_2025_HOP_MS} ms`, met: hop[side].callP50 <= TODAY_2025_HOP_MS } : undefined;
    report.add(`MCP hop: ${side}: ${call}, p50`, hop[side].callP50, 'ms', target);
    report.add(`MCP hop: ${side}: ${list}, p50`, hop[side].listP50, 'ms');
    report.add(`MCP hop: ${side}: server CPU per request`, hop[side].cpuPerRequest, 'ms');
  }
}

async function fanOutPart(report: Report, world: BenchWorld): Promise<void> {
  const figures = [];
  for (const size of [30, 100]) {
    figures.push(
      await report.phase(`fan-out ${size}`, async () => {
        await world.addSessions(size - world.sessions.length, 6);
        return measureFanOut(world, size === 100 ? 8 : 6);
      }),
    );
  }
  report.raw.fanOut = figures;
  for (const f of figures) {
    const target = f.agentctls === 100 ? { text: '≤ 100 ms', met: f.p50 <= 100 } : undefined;
    report.add(`fan-out to ${f.agentctls} agentctls: API returned → last list_changed, p50`, f.p50, 'ms', target);
    report.add(`fan-out to ${f.agentctls}: worst of ${f.rounds}`, f.max, 'ms');
    report.add(`fan-out to ${f.agentctls}: API called → last list_changed, p50`, f.fromCallP50, 'ms');
    report.add(`fan-out to ${f.agentctls}: CPU a round, backend (incl. the plugin start/stop)`, f.cpuPerRound.backend, 'ms');
    report.add(`fan-out to ${f.agentctls}: CPU a round, all agentctls`, f.cpuPerRound.agentctls, 'ms');
    report.add(`fan-out to ${f.agentctls}: CPU a round, the bench's MCP clients`, f.cpuPerRound.clients, 'ms');
  }
}

async function scopesPart(report: Report, world: BenchWorld): Promise<void> {
  const f = await report.phase('scopes 1000', () => measureScopes(world));
  report.raw.scopes = f;
  report.add(`scope change, ${f.sessions} linked sessions (${f.affected} affected): API answered → last affected applied, p50`, f.p50, 'ms', {
    text: '≤ 300 ms',
    met: f.p50 <= 300,
  });
  report.add(`scope change: worst of ${f.rounds}`, f.max, 'ms');
  report.add(`scope change: API called → last affected applied, p50`, f.fromCallP50, 'ms');
  report.add(`scope change: pushes to the ${f.sessions - f.affected} unaffected sessions`, f.unaffectedPushes, 'pushes', {
    text: '0',
    met: f.unaffectedPushes === 0,
  });
  if (!f.fullPath) return;
  report.add('full path, no scopes or profiles: p50', f.fullPath.unscoped, 'ms');
  const ratio = f.fullPath.scoped / f.fullPath.unscoped;
  report.add(`full path, ${50} profiles and ${20} workspaces scoped: p50`, f.fullPath.scoped, 'ms', { text: '≤ 1.05× unscoped', met: ratio <= 1.05 });
}

/**
 * 10,000 linked sessions on one backend (issue 31's scale): fan-out of an enable/disable to all
 * of them, the backend's resident memory per linked session, then a scope change that affects
 * 1,000 of another 10,000 and sends the other 9,000 nothing. Not in the default run (about
 * 3 minutes): `npm run bench -- --only=sessions10k`; `--only=links10k` runs the fan-out alone.
 */
async function tenThousandPart(report: Report, world: BenchWorld, withScopes = true): Promise<void> {
  const links = await report.phase('linked sessions 10000', () => measureLinkedSessions(world, 10_000, 4, linkProcesses()));
  report.raw.linkedSessions10k = links;
  process.stderr.write(`bench:   rounds at 10,000: ${JSON.stringify(links.perRound.map((r) => [r.verb, Math.round(r.firstPush), Math.round(r.fromCall)]))}\n`);
  reportLinkedSessions(report, links);
  const n = links.sessions;
  const perSession = ((links.backendRss.linked - links.backendRss.before) * 1024) / n;
  report.add(`backend RSS per linked session (${n} linked: ${links.backendRss.before} → ${links.backendRss.linked} MB)`, round(perSession, 1), 'KB');
  if (!withScopes) return;
  const scopes = await report.phase('scopes 10000', () => measureScopes(world, 10_000, 1_000, 4, false));
  report.raw.scopes10k = scopes;
  report.add(`scope change, ${scopes.sessions} linked sessions (${scopes.affected} affected): API answered → last affected applied, p50`, scopes.p50, 'ms');
  report.add(`scope change at ${scopes.sessions}: pushes to the ${scopes.sessions - scopes.affected} unaffected sessions`, scopes.unaffectedPushes, 'pushes', {
    text: '0',
    met: scopes.unaffectedPushes === 0,
  });
}

/**
 * Child processes the 10,000 link clients run in (`--link-processes=N`; 0 runs them in the
 * bench's own process): one event loop reading, applying and answering 10,000 pushes is
 * slower than the backend sending them (bench/PROFILE.md, "10,000 sessions").
 */
function linkProcesses(): number {
  const arg = process.argv.find((a) => a.startsWith('--link-processes='));
  const value = arg === undefined ? 2 : Number(arg.slice('--link-processes='.length));
  if (!Number.isInteger(value) || value < 0) throw new Error(`--link-processes takes a whole number, not ${JSON.stringify(arg)}`);
  return value;
}

async function linksPart(report: Report, world: BenchWorld): Promise<void> {
  const figures = await report.phase('linked sessions 1000', () => measureLinkedSessions(world, 1000, 6));
  report.raw.linkedSessions = figures;
  reportLinkedSessions(report, figures);
}

function reportLinkedSessions(report: Report, figures: LinkedSessionsFigures): void {
  const n = figures.sessions;
  report.add(`fan-out to ${n} linked sessions: API called → last applied, p50`, figures.fromCallP50, 'ms', {
    text: '≤ 1000 ms',
    met: figures.fromCallP50 <= 1000,
  });
  report.add(`fan-out to ${n} linked sessions: worst of ${figures.rounds}`, figures.max, 'ms');
  report.add(`fan-out to ${n} linked sessions: API returned → last applied, p50`, figures.p50, 'ms');
  report.add(`fan-out to ${n} linked sessions: API called → first push arrived, p50`, figures.firstPushP50, 'ms');
  report.add(`fan-out to ${n} linked sessions: backend CPU a round`, figures.backendCpuPerRound, 'ms');
  const where = figures.clientProcesses > 1 ? `the ${figures.clientProcesses} processes` : 'the process';
  report.add(`fan-out to ${n} linked sessions: CPU a round of ${where} running the ${n} link clients`, figures.clientCpuPerRound, 'ms');
}

async function scalePart(report: Report, world: BenchWorld): Promise<void> {
  const scale = await report.phase('scale', () => measureScale(world));
  report.raw.scale = scale;
  report.add(`scale: catalog rebuild, ${scale.tools} tools, p50`, scale.rebuildP50, 'ms');
  report.add('scale: agentctl swap in-process (ApplySnapshot), p50', scale.inProcess.swapP50, 'ms', { text: '≤ 20 ms', met: scale.inProcess.swapP50 <= 20 });
  report.add('scale: agentctl swap in-process, CPU time p50', scale.inProcess.swapCpuP50, 'ms');
  report.add(
    `scale: decoding the ${(scale.snapshotBytes / 1048576).toFixed(2)} MB snapshot text (JSON.parse + tool texts), p50`,
    scale.inProcess.decodeP50,
    'ms',
  );
  report.add('scale: agentctl swap of a one-tool change (catalog.push delta, parse included), p50', scale.inProcess.deltaSwapP50, 'ms', {
    text: '≤ 5 ms',
    met: scale.inProcess.deltaSwapP50 <= 5,
  });
  report.add(`scale: catalog.push delta of a one-tool change, bytes`, scale.deltaBytes, 'B');
  report.add('scale: agentctl first apply in-process', scale.inProcess.firstApply, 'ms');
  report.add(`scale: PUT /api/v1/mcp/plugin-tools (${(scale.snapshotBytes / 1048576).toFixed(2)} MB body), p50`, scale.agentctl.putP50, 'ms');
  report.add('scale: agentctl launched with the catalog → ready', scale.agentctl.launchToReady, 'ms');
  report.add('scale: tools/list over MCP, p50', scale.agentctl.toolsListP50, 'ms');
  report.add('scale: agentctl RSS holding 3,200 tools', scale.agentctl.rssMb, 'MB');
}

/**
 * The official MCP client's fetches each add an abort listener to one long-lived signal that
 * undici releases only at GC: a client-side warning, the same for the floor and the full path.
 */
function quietClientListenerWarning(): void {
  const listeners = process.listeners('warning');
  process.removeAllListeners('warning');
  process.on('warning', (warning) => {
    if (warning.name === 'MaxListenersExceededWarning' && warning.message.includes('abort listeners')) return;
    for (const listener of listeners) listener(warning);
  });
}

async function storePart(report: Report): Promise<void> {
  const store = await report.phase('store', () => measureStore());
  report.raw.store = store;
  report.add('test PostgreSQL: start with initdb (spawn → ready), median', store.initdb.startMs, 'ms');
  report.add("test PostgreSQL: start from the run's copied cluster, median", store.copied.startMs, 'ms');
  report.add('test PostgreSQL: fast shutdown → exited, median', store.copied.stopMs, 'ms');
  for (const side of ['sqlite', 'postgres'] as const) {
    report.add(`store ${side}: transaction (read, save record + catalog state), p50 (test PostgreSQL: fsync off)`, store[side].transactionP50, 'ms');
    report.add(`store ${side}: getPlugin, p50`, store[side].getPluginP50, 'ms');
    report.add(`store ${side}: listPlugins (20 records), p50`, store[side].listPluginsP50, 'ms');
  }
}

async function replicasPart(report: Report): Promise<void> {
  const figures = await report.phase('replicas', () => measureReplicas());
  report.raw.replicas = figures;
  const { sqlite } = figures.callsPerSecond;
  report.add('replicas: calls/s at 32 in flight, one SQLite backend', sqlite, 'calls/s');
  for (const [side, count] of [
    ['replicas1', 1],
    ['replicas2', 2],
    ['replicas3', 3],
  ] as const) {
    const rate = figures.callsPerSecond[side];
    report.add(`replicas: calls/s at 32 in flight through ${count} PostgreSQL replica${count > 1 ? 's' : ''}`, rate, 'calls/s');
    report.add(`replicas: ${count} replica${count > 1 ? 's' : ''} ÷ one SQLite backend`, round(rate / sqlite), '×', {
      text: '≥ 0.8',
      met: rate / sqlite >= 0.8,
    });
  }
  report.add(`replicas: fan-out to ${figures.fanOut.agentctls} agentctls over 3 replicas: API returned → last list_changed, p50`, figures.fanOut.p50, 'ms');
  report.add(`replicas: fan-out to ${figures.fanOut.agentctls} over 3 replicas: worst of ${figures.fanOut.rounds}`, figures.fanOut.max, 'ms');
}

/**
 * A plugin in bubblewrap (as its own uid when the bench runs as root) beside the same plugin
 * with the sandbox off: its start and its calls through the runtime (targets: start at most
 * 50 ms longer, p50 of 20; calls at most 5 % slower).
 */
async function sandboxPart(report: Report): Promise<void> {
  const f = await report.phase('sandbox', () => measureSandbox());
  report.raw.sandbox = f;
  const as = f.uid === null ? '' : ` as uid ${f.uid}`;
  report.add(`sandbox: plugin start in bubblewrap${as} (spawn → first SERVING), p50 of ${f.startRounds}`, f.start.sandboxed.p50, 'ms');
  report.add(`sandbox: the same plugin's start unsandboxed (--plugin-sandbox off), p50 of ${f.startRounds}`, f.start.unsandboxed.p50, 'ms');
  const longer = f.start.sandboxed.p50 - f.start.unsandboxed.p50;
  report.add('sandbox: start, sandboxed − unsandboxed, p50', longer, 'ms', { text: '≤ 50 ms', met: longer <= 50 });
  report.add('sandbox: start, sandboxed − unsandboxed, paired starts, p50', f.start.pairedDifferenceP50, 'ms');
  report.add(`sandbox: call through the runtime, sandboxed (${f.channel.sandboxed}), p50 of ${f.callRounds}`, f.call.sandboxed.p50, 'ms');
  report.add(`sandbox: call through the runtime, unsandboxed (${f.channel.unsandboxed}), p50 of ${f.callRounds}`, f.call.unsandboxed.p50, 'ms');
  const slower = (f.call.sandboxed.p50 / f.call.unsandboxed.p50 - 1) * 100;
  report.add('sandbox: call, sandboxed over unsandboxed, p50', slower, '% slower', { text: '≤ 5 %', met: slower <= 5 });
  report.add('sandbox: call, sandboxed − unsandboxed, paired calls, p50', f.call.pairedDifferenceP50, 'ms');
}

/**
 * An MCP server plugin (`mcp-stdio`, the official SDK's server) beside the gRPC echo plugin,
 * both through the first session's agent (target: the MCP server's p50 within 1.3× of the
 * gRPC plugin's), and the same server over its stdio alone, the floor.
 */
async function mcpServerPart(report: Report, world: BenchWorld): Promise<void> {
  const f = await report.phase('mcp server plugin', () => measureMcpServer(world));
  report.raw.mcpServer = f;
  report.add(`full path to an MCP server plugin's echo (mcp-stdio, SDK McpServer; ${f.rounds} calls alternating), p50`, f.mcpServer.p50, 'ms');
  report.add('full path to the gRPC echo plugin (mutual TLS), the same rounds, p50', f.grpc.p50, 'ms');
  report.add('full path to the gRPC echo plugin in plaintext, the same rounds, p50', f.grpcPlaintext.p50, 'ms');
  const ratio = f.mcpServer.p50 / f.grpc.p50;
  report.add('full path: MCP server plugin / gRPC plugin, p50', ratio, '×', { text: '≤ 1.3×', met: ratio <= 1.3 });
  report.add('full path: MCP server plugin / gRPC plugin in plaintext, p50', f.mcpServer.p50 / f.grpcPlaintext.p50, '×');
  report.add('full path: MCP server plugin − gRPC plugin, paired calls, p50', f.pairedDifferenceP50, 'ms');
  report.add('floor: the MCP server over its stdio with the SDK client, p50', f.stdioFloor.p50, 'ms');
  const cpu = f.pluginCpuPerCall;
  report.add('CPU per call in the plugin process: MCP server plugin', cpu.mcpServer, 'ms');
  report.add('CPU per call in the plugin process: gRPC echo plugin (mutual TLS)', cpu.grpc, 'ms');
  report.add('CPU per call in the plugin process: gRPC echo plugin in plaintext', cpu.grpcPlaintext, 'ms');
  report.add('mcpserver part: 1-minute load average at the end of its rounds', f.loadAverage.after, '');
}

/**
 * The stdio echo server behind Toolport and behind the gateways a user would pick instead, the
 * same client, interleaved (goals: Toolport's p50 at or below the best peer's, its CPU per call
 * across its processes under 1 ms).
 */
async function peersPart(report: Report, world: BenchWorld, floors: FloorServers): Promise<void> {
  const f = await report.phase('peers', () => measurePeers(world, floors));
  report.raw.peers = f;
  const floor = f.targets['no gateway']!;
  const label = (name: PeerTarget) => {
    const target = f.targets[name]!;
    return name === 'no gateway' || name === 'Toolport' ? name : `${target.what}${target.transport === 'HTTP+SSE' ? ' (HTTP+SSE)' : ''}`;
  };
  for (const [name, t] of Object.entries(f.targets) as Array<[PeerTarget, NonNullable<(typeof f.targets)[PeerTarget]>]>) {
    const at = `peers: ${label(name)}`;
    report.add(`${at}, p50 of ${f.rounds} interleaved`, t.serial.p50, 'ms');
    report.add(`${at}, p95`, t.serial.p95, 'ms');
    if (name !== 'no gateway') report.add(`${at}, p50 ÷ no gateway`, t.serial.p50 / floor.serial.p50, '×');
    report.add(`${at}, 32 in flight`, t.callsPerSecond32, 'calls/s');
    report.add(`${at}, CPU per call over its ${t.processes} processes, one at a time (${f.cpuCalls} calls)`, t.cpuPerCall.serial, 'ms');
    report.add(`${at}, CPU per call, 32 in flight`, t.cpuPerCall.inFlight32, 'ms');
  }
  const ran = PEERS.filter((peer) => f.targets[peer] !== undefined);
  const toolport = f.targets.Toolport!;
  if (ran.length > 0) {
    /** The peer with the least of `figure` (negate a figure where more is better). */
    const best = (figure: (t: NonNullable<(typeof f.targets)[PeerTarget]>) => number) =>
      ran.reduce((a, b) => (figure(f.targets[b]!) < figure(f.targets[a]!) ? b : a));
    const p50Peer = best((t) => t.serial.p50);
    const ratio = toolport.serial.p50 / f.targets[p50Peer]!.serial.p50;
    report.add(`peers: Toolport p50 ÷ the best peer's (${p50Peer})`, ratio, '×', { text: '≤ 1', met: ratio <= 1 });
    const ratePeer = best((t) => -t.callsPerSecond32);
    report.add(`peers: Toolport 32 in flight ÷ the best peer's (${ratePeer})`, toolport.callsPerSecond32 / f.targets[ratePeer]!.callsPerSecond32, '×');
    const cpuPeer = best((t) => t.cpuPerCall.serial);
    report.add(
      `peers: Toolport CPU per call, one at a time ÷ the leanest peer's (${cpuPeer})`,
      toolport.cpuPerCall.serial / f.targets[cpuPeer]!.cpuPerCall.serial,
      '×',
    );
  }
  report.add('peers: Toolport CPU per call across its processes, one at a time', toolport.cpuPerCall.serial, 'ms', {
    text: '< 1 ms',
    met: toolport.cpuPerCall.serial < 1,
  });
  // Its other plugins, idle here, take nothing measurable: left out.
  for (const [role, ms] of Object.entries(toolport.cpuPerCallByProcess))
    if (ms >= 0.005) report.add(`peers: Toolport CPU per call, one at a time, in its ${role}`, ms, 'ms');
  const all = Object.values(f.targets);
  const listening = all.filter((t) => t.listeningStream).length;
  report.add(`peers: targets whose client had its listening stream open (of ${all.length})`, listening, '', { text: 'all', met: listening === all.length });
  report.add(`peers: gateways that ran (of ${PEERS.length})`, ran.length, '', { text: '≥ 2', met: ran.length >= 2 });
  report.add('peers part: 1-minute load average at the end of its rounds', f.loadAverage.after, '');
}

/**
 * `--only=… --merge`: the parts' rows, raw figures and phases replace their earlier ones in
 * bench/results.json (or are added), the rest of the last full run kept as it was.
 */
function mergeIntoResults(rows: Row[], raw: Record<string, unknown>, phases: Record<string, number>, parts: string[]): void {
  const file = join(REPO_ROOT, 'bench', 'results.json');
  const kept = JSON.parse(readFileSync(file, 'utf8')) as { rows: Row[]; raw: Record<string, unknown>; phases: Record<string, number>; merged?: unknown[] };
  const names = new Set(rows.map((row) => row.metric));
  kept.rows = [...kept.rows.filter((row) => !names.has(row.metric)), ...rows];
  kept.raw = { ...kept.raw, ...raw };
  const { setup: _setup, ...partPhases } = phases;
  kept.phases = { ...kept.phases, ...partPhases };
  kept.merged = [...(kept.merged ?? []), { when: new Date().toISOString(), parts }];
  writeFileSync(file, `${JSON.stringify(kept, null, 2)}\n`);
}

async function main(): Promise<void> {
  quietClientListenerWarning();
  const only = process.argv.find((arg) => arg.startsWith('--only='));
  const parts = new Set(only ? only.slice('--only='.length).split(',') : ALL_PARTS);
  const began = performance.now();
  const report = new Report();
  const world = new BenchWorld();
  let floors: FloorServers | undefined;
  try {
    await report.phase('setup', async () => {
      floors = await startFloorServers(world);
      await world.setUp();
      await world.addSessions(1, 1);
    });
    const plugin = await world.echoPlugin();
    const plainPlugin = await world.echoPlugin(PLAIN_ECHO_PLUGIN);
    const agentctlPid = await world.agentctlPid(world.sessions[0]!.sessionId);
    const sample = () => ({ backend: rssMb(world.backend.pid), agentctl: rssMb(agentctlPid), plugin: rssMb(plugin.pid) });
    // Idle: started, one session connected, nothing called yet.
    const idle = sample();
    if (parts.has('paired')) await pairedPart(report, world);
    // First of all, while the backend and agentctl have served no call: the fresh code's cost.
    if (parts.has('warmup')) await warmupPart(report, world);
    if (parts.has('mcphop')) await mcpHopPart(report, world, floors!);
    if (parts.has('hops')) await hopsPart(report, world, floors!, plainPlugin);
    if (parts.has('host')) await hostPart(report, world);
    // After load: right after ~5,000 calls, garbage not yet collected included.
    const loaded = sample();
    report.raw.memory = { idle, loaded };
    if (parts.has('lean')) await leanPart(report, world);
    // While the world has one session, as for the hops: the 100 agentctls of the fan-out would share its calls' cores.
    if (parts.has('mcpserver')) await mcpServerPart(report, world);
    // Still one session, and the MCP server plugin the mcpserver part installed (else it installs it).
    if (parts.has('peers')) await peersPart(report, world, floors!);
    // After the memory sample: its second backend's calls are not the ~5,000 the sample counts.
    if (parts.has('traces')) await tracesPart(report);
    if (parts.has('approvals')) await approvalsPart(report, world);
    // Scale before fan-out, so its in-process figures do not share the machine with 100 agentctls.
    if (parts.has('scale')) await scalePart(report, world);
    // The linked sessions before the 100 agentctls of the fan-out, which would share every push.
    if (parts.has('links')) await linksPart(report, world);
    if (parts.has('scopes')) await scopesPart(report, world);
    if (parts.has('sessions10k')) await tenThousandPart(report, world);
    // The fan-out to 10,000 alone, without the scope change after it (for profiling).
    else if (parts.has('links10k')) await tenThousandPart(report, world, false);
    if (parts.has('fanout')) await fanOutPart(report, world);
    if (parts.has('store')) await storePart(report);
    if (parts.has('sandbox')) await sandboxPart(report);
    if (parts.has('replicas')) await replicasPart(report);
    const partRows = [...report.rows];
    const partRaw = { ...report.raw };
    const backendWithSessions = rssMb(world.backend.pid);

    report.add('memory: backend RSS, idle (3 plugins, 1 session)', idle.backend, 'MB');
    report.add('memory: agentctl RSS, idle', idle.agentctl, 'MB', { text: '≤ 80 MB', met: idle.agentctl <= 80 });
    report.add('memory: SDK plugin RSS, idle', idle.plugin, 'MB');
    report.add('memory: backend RSS, after load', loaded.backend, 'MB');
    report.add('memory: agentctl RSS, after load', loaded.agentctl, 'MB');
    report.add('memory: SDK plugin RSS, after load', loaded.plugin, 'MB');
    report.add(`memory: backend RSS with ${world.sessions.length} sessions`, backendWithSessions, 'MB');

    const machine = { cpus: cpus().length, cpu: cpus()[0]?.model ?? 'unknown', memory_gb: round(totalmem() / 2 ** 30, 1), node: process.version };
    const seconds = round((performance.now() - began) / 1000, 1);
    printTable(report.rows, machine, seconds, report.phases);
    // `--raw=<file>`: the raw figures of this run as JSON, for a subset that is not merged.
    const rawOut = process.argv.find((arg) => arg.startsWith('--raw='));
    if (rawOut) writeFileSync(rawOut.slice('--raw='.length), `${JSON.stringify(report.raw, null, 2)}\n`);
    if (only && process.argv.includes('--merge')) {
      const { memory: _memory, ...raw } = partRaw;
      mergeIntoResults(partRows, raw, report.phases, [...parts]);
    }
    if (!only) {
      const results = { when: new Date().toISOString(), machine, seconds, phases: report.phases, rows: report.rows, raw: report.raw };
      writeFileSync(join(REPO_ROOT, 'bench', 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
    }
  } finally {
    await floors?.run.stop('SIGTERM');
    await world.teardown();
  }
}

function printTable(rows: Row[], machine: Record<string, unknown>, seconds: number, phases: Record<string, number>): void {
  const width = Math.max(...rows.map((r) => r.metric.length));
  const lines = [`Toolport bench — ${machine.cpus} × ${machine.cpu}, ${machine.memory_gb} GB, node ${machine.node}, ${seconds} s`];
  lines.push(
    `phases (s): ${Object.entries(phases)
      .map(([name, s]) => `${name} ${s}`)
      .join(', ')}`,
    '',
  );
  lines.push(`${'metric'.padEnd(width)}  ${'value'.padStart(10)}  unit     target`);
  for (const row of rows) {
    const target = row.target ? `${row.target} ${row.met ? 'met' : 'MISSED'}` : '';
    lines.push(`${row.metric.padEnd(width)}  ${row.value.toFixed(2).padStart(10)}  ${row.unit.padEnd(7)}  ${target}`);
  }
  process.stdout.write(`${lines.join('\n')}\n`);
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    const cause =
      error instanceof Error && error.cause !== undefined ? `\ncaused by: ${String(error.cause instanceof Error ? error.cause.stack : error.cause)}` : '';
    process.stderr.write(`bench failed: ${error instanceof Error ? error.stack : String(error)}${cause}\n`);
    process.exit(1);
  },
);
