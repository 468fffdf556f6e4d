/**
 * The full path to a plugin over mutual TLS beside the same plugin in plaintext (issue 15's
 * goal: at most 10 % slower). Calls alternate one by one, in a random order each round, so
 * the load of a shared 2-core machine, which drifts by tens of percent within seconds, falls
 * on both alike; blocks of calls per kind measured the drift instead.
 */
import type { McpAgent } from '../test/support/clients/mcp-agent';
import { alternating, median, pairedDifferenceP50, spread, throughput, type Spread } from './stats';
import { ECHO_TOOL, PLAIN_ECHO_TOOL } from './world';

export interface TlsCost {
  rounds: number;
  tls: Spread;
  plaintext: Spread;
  /** Median of (mutual TLS call − plaintext call) over the rounds. */
  pairedDifferenceP50: number;
  /** Calls per second with 32 in flight, blocks of each kind alternating. */
  throughput32: { tls: number; plaintext: number };
}

export async function measureTlsCost(agent: McpAgent, rounds = 800, warmup = 60): Promise<TlsCost> {
  const call = async (tool: string, n: number): Promise<void> => {
    const result = await agent.call(tool, { value: `v${n}` });
    if (result.isError) throw new Error(`tool call failed: ${JSON.stringify(result.content)}`);
  };
  const tlsCall = (n: number) => call(ECHO_TOOL, n);
  const plainCall = (n: number) => call(PLAIN_ECHO_TOOL, n);
  await alternating(warmup, [tlsCall, plainCall]);
  const [tls, plaintext] = (await alternating(rounds, [tlsCall, plainCall])) as [number[], number[]];
  const rates = { tls: [] as number[], plaintext: [] as number[] };
  for (let block = 0; block < 3; block++) {
    rates.tls.push(await throughput(32, 400, (n) => call(ECHO_TOOL, n)));
    rates.plaintext.push(await throughput(32, 400, (n) => call(PLAIN_ECHO_TOOL, n)));
  }
  return {
    rounds,
    throughput32: { tls: median(rates.tls), plaintext: median(rates.plaintext) },
    tls: spread(tls),
    plaintext: spread(plaintext),
    pairedDifferenceP50: pairedDifferenceP50(tls, plaintext),
  };
}
