/**
 * The full path with tracing on beside tracing off (issue 19's goal: tracing costs < 10 % of
 * a call; off costs nothing measurable). Backends run side by side, each started fresh for
 * this part: one with no OTEL variable, one exporting OTLP (the default http/protobuf,
 * default batching) to an in-process receiver, and, when scripts/bench.js could build it, one
 * from the build before tracing (TOOLPORT_BENCH_BASELINE_APP; its plugins use this checkout's
 * SDK). Calls rotate one by one in a random order each round, as the TLS part does, so the
 * drifting load of a shared machine falls on all alike.
 *
 * Every side is as old as the others: the bench's own backend, which the earlier parts have
 * already warmed up, made the off side look faster than a fresh traced one by the JIT
 * compiling a young process does (bench/PROFILE.md, "Tracing"). The warm-up rounds are
 * measured too (CPU per call while the processes are young), then the rounds that count.
 *
 * Off is also judged by what the silent tracer does per call: the span calls an agentctl and
 * a backend make, timed in this process, against the full path's p50.
 */
import { join } from 'node:path';
import { ProtobufTraceSerializer } from '@opentelemetry/otlp-transformer';
import { resourceFromAttributes } from '@opentelemetry/resources';
import type { ReadableSpan, SpanProcessor } from '@opentelemetry/sdk-trace';
import { OtelTracer } from '../src/adapters/otel/otel-tracer';
import { SilentTracer } from '../src/adapters/otel/silent-tracer';
import type { Tracer } from '../src/application/ports/tracer';
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { OtlpReceiver } from '../test/support/otlp-receiver';
import { alternating, cpuMs, pairedDifferenceP50, spread, type Spread } from './stats';
import { BenchWorld, ECHO_TOOL } from './world';

export interface TraceCost {
  rounds: number;
  off: Spread;
  on: Spread;
  /** The build before tracing, when there was one to run. */
  before?: Spread & { commit: string };
  /** Median of (traced call − untraced call) over the rounds. */
  pairedDifferenceP50: number;
  /** Median of (untraced call − call to the build before tracing), when there was one. */
  offOverBeforeP50?: number;
  /**
   * CPU per call of the backend and its agentctl together (ms), which the machine's load does
   * not inflate as it does wall time.
   */
  cpuPerCall: { off: number; on: number; before?: number };
  /** The same for each process, off and on. */
  cpuPerCallByProcess: { off: { backend: number; agentctl: number }; on: { backend: number; agentctl: number } };
  /** The same over the warm-up rounds, the first calls of freshly started processes. */
  warmup: { rounds: number; cpuPerCall: { off: number; on: number; before?: number } };
  /** OTLP requests and bytes the receiver got from the traced backend, its agentctl included. */
  exported: { requests: number; bytes: number };
  /** Nanoseconds of silent-tracer work per call (agentctl's and the backend's spans together). */
  silentNsPerCall: number;
  /**
   * Microseconds of CPU per call of the OpenTelemetry adapter's span work in this process (the
   * same span calls, a batch handed over every 512 spans), without and with the OTLP protobuf
   * serialisation the exporter does to each batch: the part of tracing's cost that is Toolport's
   * own code, measured where the machine's load moves it little.
   */
  otelUsPerCall: { spans: number; serialised: number };
}

/** The span calls one tool call makes, at agentctl and at the backend. */
function silentCallWork(tracer: Tracer): void {
  const agentctl = tracer.startToolCall(undefined);
  agentctl.record({ pluginId: 'p', tool: 't', exposedName: 'x' });
  const trace = agentctl.context();
  agentctl.record({ invocationId: 'i' });
  agentctl.end('success');
  const facts = { invocationId: 'i', pluginId: 'p', tool: 't' };
  const backend = tracer.startToolCall(trace, facts);
  const call = backend.pluginCall(facts);
  call.context();
  call.end('success');
  backend.end('success');
}

function silentNsPerCall(calls = 2_000_000): number {
  const tracer = new SilentTracer();
  for (let i = 0; i < 100_000; i++) silentCallWork(tracer);
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) silentCallWork(tracer);
  return Number(process.hrtime.bigint() - started) / calls;
}

/** CPU µs per call of `silentCallWork` on OpenTelemetry tracers whose batches are dropped, or serialised as the exporter would. */
function otelUsPerCall(serialise: boolean, calls = 20_000): number {
  let batch: ReadableSpan[] = [];
  const processor = {
    onEnd: (span: ReadableSpan) => {
      if (batch.push(span) < 512) return;
      if (serialise) ProtobufTraceSerializer.serializeRequest(batch);
      batch = [];
    },
  } as unknown as SpanProcessor;
  const sink = { processor, resource: resourceFromAttributes({ 'service.name': 'toolport-backend' }), scope: { name: 'toolport', version: '0.0.0' } };
  const tracer = new OtelTracer(sink, 'backend');
  for (let i = 0; i < 5_000; i++) silentCallWork(tracer);
  const started = process.cpuUsage();
  for (let i = 0; i < calls; i++) silentCallWork(tracer);
  const used = process.cpuUsage(started);
  return (used.user + used.system) / calls;
}

/** CPU so far of a world's backend and of the agentctl of its first session (ms). */
async function worldCpu(world: BenchWorld): Promise<() => [number, number]> {
  const pids = [world.backend.pid, await world.agentctlPid(world.sessions[0]!.sessionId)] as const;
  return () => [cpuMs(pids[0]), cpuMs(pids[1])];
}

const echo =
  (agent: McpAgent) =>
  async (n: number): Promise<void> => {
    const result = await agent.call(ECHO_TOOL, { value: `v${n}` });
    if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
  };

/** CPU per call of each side (backend and agentctl together, and each) over `rounds` alternating rounds, and the rounds' timings. */
async function measuredRounds(
  rounds: number,
  sides: ReadonlyArray<(n: number) => Promise<void>>,
  cpu: ReadonlyArray<() => [number, number]>,
): Promise<{ times: number[][]; perCall: number[]; byProcess: Array<{ backend: number; agentctl: number }> }> {
  const started = cpu.map((read) => read());
  const times = await alternating(rounds, sides);
  const byProcess = cpu.map((read, i) => {
    const [backend, agentctl] = read();
    return { backend: (backend - started[i]![0]) / rounds, agentctl: (agentctl - started[i]![1]) / rounds };
  });
  return { times, perCall: byProcess.map((side) => side.backend + side.agentctl), byProcess };
}

export async function measureTraceCost(rounds = 800, warmup = 500): Promise<TraceCost> {
  const receiver = await new OtlpReceiver().start();
  const baselineApp = process.env.TOOLPORT_BENCH_BASELINE_APP;
  const worlds = { off: new BenchWorld(), on: new BenchWorld(), before: baselineApp ? new BenchWorld() : undefined };
  const running: BenchWorld[] = [];
  try {
    running.push(worlds.off);
    await worlds.off.setUp();
    running.push(worlds.on);
    await worlds.on.setUp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    if (worlds.before) {
      running.push(worlds.before);
      await worlds.before.setUp({}, join(baselineApp!, 'bin', 'toolport'));
    }
    for (const world of running) await world.addSessions(1, 1);
    const sides = running.map((world) => echo(world.sessions[0]!.agent));
    const cpu = await Promise.all(running.map(worldCpu));
    const young = await measuredRounds(warmup, sides, cpu);
    const {
      times: [off, on, before],
      perCall,
      byProcess,
    } = await measuredRounds(rounds, sides, cpu);
    // The graceful stop flushes what the traced processes still batch.
    while (running.length > 0) await running.pop()!.teardown();
    return {
      rounds,
      off: spread(off!),
      on: spread(on!),
      ...(before
        ? { before: { ...spread(before), commit: process.env.TOOLPORT_BENCH_BASELINE_COMMIT ?? '' }, offOverBeforeP50: pairedDifferenceP50(off!, before) }
        : {}),
      pairedDifferenceP50: pairedDifferenceP50(on!, off!),
      cpuPerCall: { off: perCall[0]!, on: perCall[1]!, ...(before ? { before: perCall[2]! } : {}) },
      cpuPerCallByProcess: { off: byProcess[0]!, on: byProcess[1]! },
      warmup: { rounds: warmup, cpuPerCall: { off: young.perCall[0]!, on: young.perCall[1]!, ...(before ? { before: young.perCall[2]! } : {}) } },
      exported: { requests: receiver.exports.length, bytes: receiver.exports.reduce((sum, e) => sum + e.body.length, 0) },
      silentNsPerCall: silentNsPerCall(),
      otelUsPerCall: { spans: otelUsPerCall(false), serialised: otelUsPerCall(true) },
    };
  } finally {
    for (const world of running) await world.teardown();
    await receiver.close();
  }
}
