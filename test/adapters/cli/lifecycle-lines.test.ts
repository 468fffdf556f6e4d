import { LifecycleLines } from '../../../src/adapters/cli/lifecycle-lines';
import type { PluginRecord } from '../../../src/domain/plugin-record';
import type { SessionRecord } from '../../../src/domain/session';

function plugin(status: PluginRecord['status'], overrides: Partial<PluginRecord> = {}): PluginRecord {
  return { id: 'acme.tasks', version: '1.0.0', status, enabled: true, last_error: null, restart_count: 0, ...overrides } as PluginRecord;
}

const commit = (...records: PluginRecord[]) => new Map(records.map((record) => [record.id, record]));

describe('the demo’s lifecycle lines', () => {
  it('tells a plugin once per status or version change, and when it goes', () => {
    const lines = new LifecycleLines();
    expect(lines.pluginsCommitted(commit(plugin('active')))).toEqual(['plugin acme.tasks 1.0.0 installed, active']);
    expect(lines.pluginsCommitted(commit(plugin('active', { restart_count: 1 })))).toEqual([]);
    expect(lines.pluginsCommitted(commit(plugin('error', { last_error: 'plugin process exited (exit code 1)' })))).toEqual([
      'plugin acme.tasks 1.0.0 in error: plugin process exited (exit code 1)',
    ]);
    expect(lines.pluginsCommitted(commit(plugin('active', { version: '1.1.0' })))).toEqual(['plugin acme.tasks 1.1.0 active']);
    expect(lines.pluginsCommitted(commit())).toEqual(['plugin acme.tasks uninstalled']);
  });

  it('tells a session once per status', () => {
    const lines = new LifecycleLines();
    const session = { session_id: 's-1', task_id: 'T-1', surface: 'kanban-task', launched: true } as SessionRecord;
    expect(lines.sessionSaved({ ...session, status: 'starting' })).toEqual(['session s-1 (task T-1, kanban-task) starting']);
    expect(lines.sessionSaved({ ...session, status: 'starting' })).toEqual([]);
    expect(lines.sessionSaved({ ...session, status: 'live' })).toEqual(['session s-1 (task T-1, kanban-task) live: its agentctl is linked']);
    expect(lines.sessionSaved({ ...session, session_id: 's-2', launched: false, status: 'starting' })).toEqual([
      'session s-2 (task T-1, kanban-task, agentctl run elsewhere) starting',
    ]);
  });
});
