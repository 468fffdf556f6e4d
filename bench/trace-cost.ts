/**
 * The full path with tracing on beside tracing off (issue 19's goal: tracing costs < 10 % of
 * a call; off costs nothing measurable). Two backends run side by side: the bench's own
 * (no OTEL variable) and one exporting OTLP (the default http/protobuf, default batching) to
 * an in-process receiver. Calls alternate one by one in a random order each round, as the
 * TLS part does, so the drifting load of a shared machine falls on both alike.
 *
 * "Off" cannot be set beside a build without the tracer in one run, so it is judged by what
 * the silent tracer does per call: the same span calls an agentctl and a backend make,
 * timed in this process, against the full path's p50.
 */
import { SilentTracer } from '../src/adapters/memory/silent-tracer';
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { OtlpReceiver } from '../test/support/otlp-receiver';
import { alternating, cpuMs, pairedDifferenceP50, spread, type Spread } from './stats';
import { BenchWorld, ECHO_TOOL } from './world';

export interface TraceCost {
  rounds: number;
  off: Spread;
  on: Spread;
  /** Median of (traced call − untraced call) over the rounds. */
  pairedDifferenceP50: number;
  /**
   * CPU per call of the backend and its agentctl together (ms), which the machine's load does
   * not inflate as it does wall time.
   */
  cpuPerCall: { off: number; on: number };
  /** OTLP requests and spans the receiver got from the traced backend, its agentctl included. */
  exported: { requests: number; bytes: number };
  /** Nanoseconds of silent-tracer work per call (agentctl's and the backend's spans together). */
  silentNsPerCall: number;
}

/** The span calls one tool call makes with tracing off, at agentctl and at the backend. */
function silentCallWork(tracer: SilentTracer): void {
  const agentctl = tracer.startSpan('tools/call', undefined, { 'mcp.method.name': 'tools/call' });
  agentctl.setAttributes({ 'toolport.plugin_id': 'p', 'toolport.tool': 't', 'gen_ai.tool.name': 'x' });
  const trace = agentctl.context();
  agentctl.setAttributes({ 'toolport.invocation_id': 'i' });
  agentctl.end('success');
  const backend = tracer.startSpan('mcp.invoke_plugin_tool', trace, { 'toolport.invocation_id': 'i' });
  const call = backend.child('toolport.plugin.v1.Plugin/InvokeAgentTool', { 'toolport.invocation_id': 'i' });
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

/** CPU so far of a world's backend and the agentctl of its first session (ms). */
async function worldCpu(world: BenchWorld): Promise<() => number> {
  const pids = [world.backend.pid, await world.agentctlPid(world.sessions[0]!.sessionId)];
  return () => pids.reduce((sum, pid) => sum + cpuMs(pid), 0);
}

export async function measureTraceCost(untraced: BenchWorld, rounds = 800, warmup = 60): Promise<TraceCost> {
  const offAgent = untraced.sessions[0]!.agent;
  const receiver = await new OtlpReceiver().start();
  const traced = new BenchWorld();
  let stopped = false;
  try {
    await traced.setUp({ OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url });
    await traced.addSessions(1, 1);
    const onAgent = traced.sessions[0]!.agent;
    const call = (agent: McpAgent) => async (n: number): Promise<void> => {
      const result = await agent.call(ECHO_TOOL, { value: `v${n}` });
      if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
    };
    await alternating(warmup, call(offAgent), call(onAgent));
    const cpu = { off: await worldCpu(untraced), on: await worldCpu(traced) };
    const cpuBefore = { off: cpu.off(), on: cpu.on() };
    const { a: off, b: on } = await alternating(rounds, call(offAgent), call(onAgent));
    const cpuPerCall = { off: (cpu.off() - cpuBefore.off) / rounds, on: (cpu.on() - cpuBefore.on) / rounds };
    // The graceful stop flushes what the traced processes still batch.
    await traced.teardown();
    stopped = true;
    return {
      rounds,
      off: spread(off),
      on: spread(on),
      pairedDifferenceP50: pairedDifferenceP50(on, off),
      cpuPerCall,
      exported: { requests: receiver.exports.length, bytes: receiver.exports.reduce((sum, e) => sum + e.body.length, 0) },
      silentNsPerCall: silentNsPerCall(),
    };
  } finally {
    if (!stopped) await traced.teardown();
    await receiver.close();
  }
}
