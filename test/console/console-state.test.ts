import type { Call, PluginRecord } from '../../src/api';
import { applyEvent, EMPTY_STATE, lastMinute, recentFailures, type ConsoleState } from '../../src/console/console-state';

const NOW = Date.parse('2026-12-02T12:00:00.000Z');
const at = (secondsAgo: number) => new Date(NOW - secondsAgo * 1000).toISOString();

function call(outcome: Call['outcome'], secondsAgo: number, code: string | null = null): Call {
  return {
    time: at(secondsAgo),
    session_id: 's-1',
    task_id: 't-1',
    plugin_id: 'acme.tools',
    tool: 'echo',
    exposed_name: 'kandev_acme_tools_echo',
    outcome,
    code,
    duration_ms: 3,
    catalog_revision: 1,
    invocation_id: 'inv-1',
  };
}

function plugin(restartCount: number, secondsAgo: number): PluginRecord {
  return { id: 'acme.tools', status: 'active', restart_count: restartCount, updated_at: at(secondsAgo) } as PluginRecord;
}

/** Issue 30 item 7: the overview's last minute counts tool errors, errors and restarts. */
describe('the console overview counts', () => {
  it('tool errors, errors, calls agentctl refused and restarts in the last minute, older ones not', () => {
    let state: ConsoleState = EMPTY_STATE;
    for (let i = 0; i < 7; i += 1) state = applyEvent(state, { type: 'call', data: call('tool_error', 10 + i) });
    state = applyEvent(state, { type: 'call', data: call('error', 5, 'PLUGIN_CRASHED') });
    state = applyEvent(state, { type: 'call', data: call('error', 120, 'TOOL_TIMEOUT') });
    state = applyEvent(state, { type: 'call', data: call('success', 1) });
    state = applyEvent(state, { type: 'call', data: call('refused', 3, 'NOT_FOUND') });
    state = applyEvent(state, { type: 'call', data: call('refused', 90, 'INVALID_ARGUMENTS') });
    state = applyEvent(state, { type: 'plugin', data: plugin(0, 300) });
    state = applyEvent(state, { type: 'plugin', data: plugin(1, 4) });
    // The same record again (no new restart) and an older copy count nothing.
    state = applyEvent(state, { type: 'plugin', data: plugin(1, 4) });
    state = applyEvent(state, { type: 'plugin', data: plugin(0, 200) });
    expect(lastMinute(state, NOW)).toEqual({ calls: 10, toolErrors: 7, errors: 1, refused: 1, restarts: 1 });
  });

  it('lists tool errors among the recent failures, newest first', () => {
    let state: ConsoleState = EMPTY_STATE;
    state = applyEvent(state, { type: 'call', data: call('error', 30, 'INVALID_ARGUMENTS') });
    state = applyEvent(state, { type: 'call', data: call('success', 20) });
    state = applyEvent(state, { type: 'call', data: call('tool_error', 10) });
    expect(recentFailures(state).map((c) => c.outcome)).toEqual(['tool_error', 'error']);
  });

  it('lists and totals a call agentctl refused itself', () => {
    let state: ConsoleState = EMPTY_STATE;
    state = applyEvent(state, { type: 'call', data: call('success', 20) });
    state = applyEvent(state, { type: 'call', data: { ...call('refused', 10, 'NOT_FOUND'), plugin_id: '', tool: '', exposed_name: 'kandev_nope' } });
    expect(recentFailures(state).map((c) => [c.outcome, c.exposed_name])).toEqual([['refused', 'kandev_nope']]);
    expect(state.totals.by_outcome).toMatchObject({ success: 1, refused: 1 });
  });
});
