import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { apiClient, startBackend, type RunningBackend } from '../support/backend-process';
import { chaosDir, closeClients, connectMcp, eventually, exposed, invocationLog, tearDown, textOf, writeSlowPlugin, type SessionAnswer } from './support/chaos-kit';

const PLUGIN = 'chaos.crashy';
const TOOL = exposed(PLUGIN, 'work');
const CALLS = 50;

type Ending = { kind: 'result'; isError: boolean; text: string; invocationId?: string } | { kind: 'rpc_error'; message: string };

/** A plugin process killed while 50 agent calls run through MCP. */
describe('chaos: a plugin process is SIGKILLed during 50 concurrent calls', () => {
  let dir: string;
  let backend: RunningBackend | undefined;
  let api: ReturnType<typeof apiClient>;
  let clients: Client[] = [];

  beforeAll(async () => {
    dir = chaosDir('plugin-crash');
    const dataDir = join(dir, 'data');
    backend = await startBackend({ dataDir, args: ['--restart-backoff-ms', '100', '--plugin-max-inflight', '64'] });
    api = apiClient(backend.url, backend.token);
    const installed = await api('POST', '/api/v1/plugins', { path: writeSlowPlugin(join(dir, 'pkg'), PLUGIN) });
    expect(installed.status).toBe(201);
    for (const surface of ['kanban-task', 'office-task']) {
      const session = await api<SessionAnswer>('POST', '/api/v1/sessions', { task_id: `t-${surface}`, workspace_id: 'w', surface });
      expect(session.status).toBe(201);
      clients.push(await connectMcp(session.body.mcp!.url, session.body.mcp!.token));
    }
  }, 60_000);

  afterAll(async () => {
    await closeClients(clients);
    clients = [];
    await tearDown(dir, [backend], []);
  }, 30_000);

  async function call(client: Client, n: number): Promise<Ending> {
    try {
      const result = await client.callTool({ name: TOOL, arguments: { ms: 1500, n } });
      const structured = result.structuredContent as { invocation_id?: string } | undefined;
      return { kind: 'result', isError: result.isError === true, text: textOf(result), invocationId: structured?.invocation_id };
    } catch (error) {
      return { kind: 'rpc_error', message: error instanceof Error ? error.message : String(error) };
    }
  }

  it('ends every call once with a result or a coded error, runs none twice, and the plugin comes back active', async () => {
    const first = await clients[0].callTool({ name: TOOL, arguments: { ms: 0 } });
    expect(first.isError).toBeFalsy();
    const pid = (first.structuredContent as { pid: number }).pid;
    const seenBefore = invocationLog(join(dir, 'data'), PLUGIN).length;

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
        await eventually(() => (invocationLog(join(dir, 'data'), PLUGIN).length - seenBefore >= 20 ? true : undefined), 10_000, 'calls to reach the plugin');
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
    const seen = invocationLog(join(dir, 'data'), PLUGIN).slice(seenBefore);
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.length).toBeLessThanOrEqual(CALLS);
    for (const ending of flat) {
      if (ending.kind === 'result' && !ending.isError) expect(seen).toContain(ending.invocationId);
    }

    const record = await eventually(
      async () => {
        const got = await api<{ status: string; restart_count: number }>('GET', `/api/v1/plugins/${PLUGIN}`);
        return got.body.status === 'active' ? got.body : undefined;
      },
      10_000,
      'the plugin to be active again',
    );
    expect(record.restart_count).toBeGreaterThanOrEqual(1);
    // Back in the agent's catalog: a call succeeds on a new process.
    const after = await eventually(
      async () => {
        const result = await clients[1].callTool({ name: TOOL, arguments: { ms: 0 } });
        return result.isError ? undefined : result;
      },
      10_000,
      'a call to succeed after the restart',
    );
    expect((after.structuredContent as { pid: number }).pid).not.toBe(pid);
  }, 60_000);
});
