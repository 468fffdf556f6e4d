import { join } from 'node:path';
import type { Call, ConsoleSnapshot } from '../../../src/api';
import type { McpAgent } from '../../support/clients/mcp-agent';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { BackendWorld } from '../../support/processes/backend-world';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

const UNKNOWN_VALUE = 'unknown-tool-argument-5519';
const INVALID_VALUE = 'invalid-argument-value-7731';

/** Every `name{labels} value` sample of a scrape whose name is `metric`. */
function samplesOf(text: string, metric: string): string[] {
  return text.split('\n').filter((line) => line.startsWith(`${metric}{`));
}

/**
 * issue 30 item 7: calls agentctl refuses itself (an unknown tool, arguments its held schema
 * rejects) never reach a plugin, yet leave a trace: the agentctl's log, its report over the link,
 * the backend's log line, `/metrics` and the live channel's calls, never the arguments.
 */
describe('refused calls', () => {
  const world = new BackendWorld([], { prefix: 'toolport-refused-' });
  let agent: McpAgent;
  let sessionId: string;

  beforeAll(async () => {
    await world.start();
    await world.install(join(REPO_ROOT, 'examples', 'plugins', 'echo'));
    const session = await world.session('kanban-task', 'T-refused');
    sessionId = session.session_id;
    agent = await world.agent(session, 'refused-e2e');
  }, 60_000);

  afterAll(async () => {
    await agent?.close();
    expect(await world.gracefulTeardown()).toEqual({ exitCode: 0, outlived: [], swept: [] });
  }, 20_000);

  async function scrape(): Promise<string> {
    const response = await fetch(new URL('/metrics', world.backend.url), { headers: { authorization: `Bearer ${world.backend.token}` } });
    expect(response.status).toBe(200);
    return response.text();
  }

  /** The live channel's first event, the snapshot, read from a real `GET /api/v1/events` stream. */
  async function liveSnapshot(): Promise<ConsoleSnapshot> {
    const aborter = new AbortController();
    const response = await fetch(new URL('/api/v1/events', world.backend.url), {
      headers: { authorization: `Bearer ${world.backend.token}` },
      signal: aborter.signal,
    });
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const decoder = new TextDecoder();
    let text = '';
    try {
      for (;;) {
        const match = /event: snapshot\ndata: (.*)\n\n/.exec(text);
        if (match) return JSON.parse(match[1]!) as ConsoleSnapshot;
        const { value, done } = await reader.read();
        if (done) throw new Error(`the stream ended before its snapshot: ${text}`);
        text += decoder.decode(value, { stream: true });
      }
    } finally {
      aborter.abort();
      await reader.cancel().catch(() => undefined);
    }
  }

  it('counts, logs and shows an unknown tool and invalid arguments, without their arguments', async () => {
    const unknown = await agent.call('kandev_no_such_tool', { token: UNKNOWN_VALUE }).then(
      (result) => resultText(result),
      (error: unknown) => String(error),
    );
    expect(unknown).toContain('kandev_no_such_tool');
    const invalid = await agent.call('kandev_toolport_echo_echo', { message: { nested: INVALID_VALUE } });
    expect(invalid.isError).toBe(true);
    expect(resultText(invalid)).toMatch(/^\[INVALID_ARGUMENTS\]/);
    // A call that is sent is no refusal.
    expect((await agent.call('kandev_toolport_echo_echo', { message: 'hello' })).isError).toBeFalsy();

    let metrics = '';
    await eventually(
      async () => {
        metrics = await scrape();
        return samplesOf(metrics, 'toolport_refused_calls_total').length === 2;
      },
      10_000,
      'both refusals to be counted',
    );
    expect(samplesOf(metrics, 'toolport_refused_calls_total').sort()).toEqual([
      'toolport_refused_calls_total{code="INVALID_ARGUMENTS"} 1',
      'toolport_refused_calls_total{code="NOT_FOUND"} 1',
    ]);
    expect(metrics).toContain('toolport_tool_calls_total{plugin_id="toolport.echo",tool="echo",outcome="refused",code="INVALID_ARGUMENTS"} 1');
    expect(metrics).toContain('toolport_tool_calls_total{plugin_id="",tool="",outcome="refused",code="NOT_FOUND"} 1');
    // Never sent to the plugin: only the one call that was is an invocation.
    expect(metrics).toContain('toolport_invocations_total{plugin_id="toolport.echo",outcome="success"} 1');
    expect(metrics).not.toMatch(/toolport_invocations_total\{[^}]*outcome="refused"/);

    const snapshot = await liveSnapshot();
    const refused = snapshot.calls.filter((call: Call) => call.outcome === 'refused');
    expect(refused.map((call) => [call.exposed_name, call.plugin_id, call.code, call.session_id])).toEqual([
      ['kandev_no_such_tool', '', 'NOT_FOUND', sessionId],
      ['kandev_toolport_echo_echo', 'toolport.echo', 'INVALID_ARGUMENTS', sessionId],
    ]);
    expect(snapshot.call_totals.by_outcome.refused).toBe(2);
    expect(snapshot.call_totals.by_outcome.success).toBe(1);

    // The agentctl's line and the backend's, for each (the launched agentctl logs to the backend's stderr).
    const lines = world.backend
      .stderr()
      .split('\n')
      .filter((line) => line.startsWith('{'))
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    const agentctlLines = lines.filter((line) => line.msg === 'tool call refused');
    const backendLines = lines.filter((line) => line.msg === 'tool call refused by agentctl');
    expect(agentctlLines.map((line) => [line.tool, line.code, line.session_id])).toEqual([
      ['kandev_no_such_tool', 'NOT_FOUND', sessionId],
      ['kandev_toolport_echo_echo', 'INVALID_ARGUMENTS', sessionId],
    ]);
    expect(backendLines.map((line) => [line.tool, line.code, line.session_id, line.task_id])).toEqual([
      ['kandev_no_such_tool', 'NOT_FOUND', sessionId, 'T-refused'],
      ['kandev_toolport_echo_echo', 'INVALID_ARGUMENTS', sessionId, 'T-refused'],
    ]);
    const everything = world.backend.stderr() + metrics + JSON.stringify(snapshot);
    expect(everything).not.toContain(UNKNOWN_VALUE);
    expect(everything).not.toContain(INVALID_VALUE);
  }, 30_000);
});
