import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { exposed, invocationLog, writeSlowPlugin } from '../../support/packages/slow-plugin';
import { BackendWorld } from '../../support/processes/backend-world';

const PLUGIN = 'chaos.crashy';
const TOOL = exposed(PLUGIN, 'work');
const CALLS = 50;

type Ending = { kind: 'result'; isError: boolean; text: string; invocationId?: string } | { kind: 'rpc_error'; message: string };

/** A plugin process killed while 50 agent calls run through MCP. */
describe('chaos: a plugin process is SIGKILLed during 50 concurrent calls', () => {
  // Two sessions carry the 50 calls, so each may have more in flight than the default share of 8.
  const world = new BackendWorld(['--restart-backoff-ms', '100', '--plugin-max-inflight', '64', '--session-max-inflight', '64'], {
    prefix: 'toolport-chaos-plugin-crash-',
  });
  let clients: McpAgent[];

  beforeAll(async () => {
    await world.start();
    await world.install(writeSlowPlugin(join(world.root, 'pkg'), PLUGIN));
    ({ agents: clients } = await world.openSessions(['kanban-task', 'office-task']));
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function call(client: McpAgent, n: number): Promise<Ending> {
    try {
      const result = await client.call(TOOL, { ms: 1500, n });
      const structured = result.structuredContent as { invocation_id?: string } | undefined;
      return { kind: 'result', isError: result.isError === true, text: resultText(result), invocationId: structured?.invocation_id };
    } catch (error) {
      return { kind: 'rpc_error', message: error instanceof Error ? error.message : String(error) };
    }
  }

  it('ends every call once with a result or a coded error, runs none twice, and the plugin comes back active', async () => {
    const first = await clients[0].call(TOOL, { ms: 0 });
    expect(first.isError).toBeFalsy();
    // The host pid of the plugin's tree (bubblewrap's, when sandboxed: killing it ends the whole
    // sandbox); the pid a sandboxed plugin reports is the one in its own PID namespace.
    const [pid] = world.pluginPids(PLUGIN);
    expect(pid).toBeDefined();
    const seenBefore = invocationLog(world.dataDir, PLUGIN).length;

    const endings = new Map<number, Ending[]>();
    const calls: Array<Promise<void>> = [];
    for (let n = 0; n < CALLS; n++) {
      calls.push(
        call(clients[n % clients.length], n).then((ending) => {
          endings.set(n, [...(endings.get(n) ?? []), ending]);
        }),
      );
      // Spread the calls so some reach the plugin before the kill and some after.
      if (n % 10 === 9) await new Promise((resolve) => setTimeout(resolve, 60));
      if (n === 29) {
        await eventually(() => (invocationLog(world.dataDir, PLUGIN).length - seenBefore >= 20 ? true : undefined), 10_000, 'calls to reach the plugin');
        process.kill(pid, 'SIGKILL');
      }
    }
    const started = Date.now();
    await Promise.all(calls);
    // Nothing waits for the 30 s tool deadline: a crash ends the calls at once.
    expect(Date.now() - started).toBeLessThan(10_000);

    expect(endings.size).toBe(CALLS);
    const all = [...endings.values()];
    expect(all.every((list) => list.length === 1)).toBe(true);
    const flat = all.map((list) => list[0]);
    for (const ending of flat) {
      if (ending.kind === 'rpc_error') {
        // A call racing the removal of the tools from the catalog: unknown tool, fails closed.
        expect(ending.message).toMatch(/-32602|not found|unknown tool/i);
      } else if (ending.isError) {
        expect(ending.text).toMatch(/^\[(PLUGIN_CRASHED|PLUGIN_NOT_ACTIVE)\] /);
      } else {
        expect(ending.text).toMatch(/^done /);
      }
    }
    const crashed = flat.filter((e) => e.kind === 'result' && e.isError && e.text.startsWith('[PLUGIN_CRASHED]'));
    expect(crashed.length).toBeGreaterThanOrEqual(20);

    // The plugin saw each invocation at most once, and every success is one it saw.
    const seen = invocationLog(world.dataDir, PLUGIN).slice(seenBefore);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeLessThanOrEqual(CALLS);
    for (const ending of flat) {
      if (ending.kind === 'result' && !ending.isError) expect(seen).toContain(ending.invocationId);
    }

    const record = await eventually(
      async () => {
        const got = await world.api<{ status: string; restart_count: number }>('GET', `/api/v1/plugins/${PLUGIN}`);
        return got.body.status === 'active' ? got.body : undefined;
      },
      10_000,
      'the plugin to be active again',
      { retryErrors: true },
    );
    expect(record.restart_count).toBeGreaterThanOrEqual(1);
    // Back in the agent's catalog: a call succeeds on a new process.
    const after = await eventually(
      async () => {
        const result = await clients[1].call(TOOL, { ms: 0 });
        return result.isError ? undefined : result;
      },
      10_000,
      'a call to succeed after the restart',
      { retryErrors: true },
    );
    expect(after.isError).toBeFalsy();
    expect(world.pluginPids(PLUGIN)).not.toContain(pid);
  }, 60_000);
});
