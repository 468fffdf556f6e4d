/**
 * The standalone agentctl file (docs/agentctl.md, "An agentctl in the agent's container"):
 * dist/agentctl.js copied alone into an empty temp folder and started by hand, as a container
 * would, with plain `node` and no flags, on a `--no-launch` session of the bench's backend.
 * Its resident memory idle (linked, one MCP client connected, a few seconds after its first
 * list) and right after 1,000 echo calls through the backend to the plugin, and its CPU per
 * call over them. Each of the two also once settled: left alone until its resident memory stops
 * falling (V8's memory reducer collects an idle heap some seconds after its last busy spell).
 */
import { statSync } from 'node:fs';
import { connectAgent } from '../test/support/clients/mcp-agent';
import { eventually } from '../test/support/eventually';
import { AGENTCTL_BUNDLE, loneAgentctlCopy } from '../test/support/processes/toolport-paths';
import { cpuMs, rssMb } from './stats';
import { ECHO_TOOL, type BenchWorld } from './world';

export interface LeanAgentctlFigures {
  fileKb: number;
  idleMb: number;
  /** Left alone until settled (see settledRssMb), before any call. */
  idleSettledMb: number;
  afterCallsMb: number;
  /** Left alone after the calls until settled. */
  afterCallsSettledMb: number;
  calls: number;
  /** The agentctl's own CPU (user + system) over those calls, per call. */
  cpuPerCallMs: number;
}

const CALLS = 1000;
const SETTLE_MS = 3000;
/** A settled figure: no new low by more than 0.1 MB for QUIET_SAMPLES seconds in a row, after at least MIN_SETTLE_MS; at most MAX_SETTLE_MS. */
const QUIET_SAMPLES = 6;
const MIN_SETTLE_MS = 10_000;
const MAX_SETTLE_MS = 30_000;

/** The lowest resident memory of `pid` while it is left alone, once it stops falling. */
async function settledRssMb(pid: number): Promise<number> {
  const started = Date.now();
  let low = rssMb(pid);
  let quiet = 0;
  while (Date.now() - started < MAX_SETTLE_MS && (quiet < QUIET_SAMPLES || Date.now() - started < MIN_SETTLE_MS)) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const now = rssMb(pid);
    quiet = now < low - 0.1 ? 0 : quiet + 1;
    low = Math.min(low, now);
  }
  return low;
}

export async function measureLeanAgentctl(world: BenchWorld): Promise<LeanAgentctlFigures> {
  const file = loneAgentctlCopy(AGENTCTL_BUNDLE);
  const session = await world.session('kanban-task', 'bench-lean-agentctl', false);
  const token = 'bench-lean-mcp';
  const agentctl = await world.startAgentctl({
    command: [file],
    backendUrl: session.agentctl!.backend_url,
    tokens: { session: session.agentctl!.session_token, mcp: token, control: '' },
    env: { TOOLPORT_LOG_LEVEL: 'warn' },
  });
  const agent = await connectAgent(agentctl.mcpUrl, token, 'bench-lean-agent');
  try {
    await eventually(async () => (await agent.toolNames()).includes(ECHO_TOOL), 10_000, 'the echo tool at the standalone agentctl');
    await new Promise((resolve) => setTimeout(resolve, SETTLE_MS));
    const idleMb = rssMb(agentctl.pid);
    const idleSettledMb = await settledRssMb(agentctl.pid);
    const cpuBefore = cpuMs(agentctl.pid);
    for (let i = 0; i < CALLS; i++) await agent.call(ECHO_TOOL, { value: `lean ${i}` });
    const cpuPerCallMs = (cpuMs(agentctl.pid) - cpuBefore) / CALLS;
    const afterCallsMb = rssMb(agentctl.pid);
    const afterCallsSettledMb = await settledRssMb(agentctl.pid);
    return { fileKb: statSync(file).size / 1024, idleMb, idleSettledMb, afterCallsMb, afterCallsSettledMb, calls: CALLS, cpuPerCallMs };
  } finally {
    await agent.close();
    await agentctl.stop();
  }
}
