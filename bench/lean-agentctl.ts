/**
 * The standalone agentctl file (docs/agentctl.md, "An agentctl in the agent's container"):
 * dist/agentctl.js copied alone into an empty temp folder and started by hand, as a container
 * would, with plain `node` and no flags, on a `--no-launch` session of the bench's backend.
 * Its resident memory idle (linked, one MCP client connected, a few seconds after its first
 * list) and right after 1,000 echo calls through the backend to the plugin, and its CPU per
 * call over them.
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
  afterCallsMb: number;
  calls: number;
  /** The agentctl's own CPU (user + system) over those calls, per call. */
  cpuPerCallMs: number;
}

const CALLS = 1000;
const SETTLE_MS = 3000;

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
    const cpuBefore = cpuMs(agentctl.pid);
    for (let i = 0; i < CALLS; i++) await agent.call(ECHO_TOOL, { value: `lean ${i}` });
    const cpuPerCallMs = (cpuMs(agentctl.pid) - cpuBefore) / CALLS;
    const afterCallsMb = rssMb(agentctl.pid);
    return { fileKb: statSync(file).size / 1024, idleMb, afterCallsMb, calls: CALLS, cpuPerCallMs };
  } finally {
    await agent.close();
    await agentctl.stop();
  }
}
