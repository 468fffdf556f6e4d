/**
 * What approval rules cost a call they do not hold (issue 29's goal: a call under a rule that
 * does not match costs no more than 2 % over no rules). One world, its echo tool called in
 * blocks that alternate between no rules and one rule matching no session (workspace
 * `bench-nowhere`), in the order A B B A A B B A… so neither side always goes first and the
 * drifting load of a shared machine falls on both alike, after 500 calls of warm-up (fresh code
 * costs more a call for its first ~1,000 calls: bench/PROFILE.md §12); and the rule check itself,
 * timed in this process, against the full path's p50.
 */
import { approvalModeFor, type ApprovalRule } from '../src/domain/approvals';
import { spread, type Spread } from './stats';
import { BenchWorld, ECHO_PLUGIN, ECHO_TOOL } from './world';

export interface ApprovalCost {
  calls: number;
  noRules: Spread;
  unmatchedRule: Spread;
  /** Nanoseconds of the backend's rule check per call, with the one unmatched rule. */
  checkNsPerCall: number;
}

const UNMATCHED: ApprovalRule[] = [{ workspace: 'bench-nowhere', profile: '*', tools: 'destructive', mode: 'operator' }];

function checkNsPerCall(calls = 2_000_000): number {
  const session = { workspace_id: 'bench', profile: 'default' };
  const tool = { exposed_name: ECHO_TOOL, plugin_id: ECHO_PLUGIN, destructive: true };
  for (let i = 0; i < 100_000; i++) approvalModeFor(UNMATCHED, session, tool);
  const started = process.hrtime.bigint();
  for (let i = 0; i < calls; i++) approvalModeFor(UNMATCHED, session, tool);
  return Number(process.hrtime.bigint() - started) / calls;
}

async function setRules(world: BenchWorld, rules: ApprovalRule[]): Promise<void> {
  const answer = await world.api('PUT', '/api/v1/approval-rules', rules);
  if (answer.status !== 200) throw new Error(`approval rules refused: ${answer.status} ${JSON.stringify(answer.body)}`);
}

export async function measureApprovalCost(world: BenchWorld, blocks = 20, perBlock = 30): Promise<ApprovalCost> {
  const agent = world.sessions[0]!.agent;
  const times = { none: [] as number[], unmatched: [] as number[] };
  const call = async (n: number): Promise<number> => {
    const started = performance.now();
    const result = await agent.call(ECHO_TOOL, { value: `a${n}` });
    if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
    return performance.now() - started;
  };
  try {
    for (let i = 0; i < 500; i++) await call(i);
    for (let block = 0; block < blocks * 2; block++) {
      const side = (block + 1) % 4 < 2 ? 'none' : 'unmatched';
      await setRules(world, side === 'none' ? [] : UNMATCHED);
      for (let i = 0; i < perBlock; i++) times[side].push(await call(i));
    }
  } finally {
    await setRules(world, []);
  }
  return { calls: blocks * perBlock, noRules: spread(times.none), unmatchedRule: spread(times.unmatched), checkNsPerCall: checkNsPerCall() };
}
