import type { PluginRecord } from '../../domain/plugin-record';
import type { SessionRecord } from '../../domain/session';

/**
 * One human line per lifecycle change, for the demo's terminal: a plugin that appears, changes
 * status or version, or goes; a session that changes status. Commits that leave a plugin's
 * status and version as they were (a restart count, a timestamp) say nothing.
 */
export class LifecycleLines {
  private readonly plugins = new Map<string, string>();
  private readonly sessions = new Map<string, string>();

  /** The lines for the plugin records as one commit left them (every installed plugin). */
  pluginsCommitted(records: ReadonlyMap<string, PluginRecord>): string[] {
    const lines: string[] = [];
    for (const [id, record] of records) {
      const state = `${record.version} ${record.status}`;
      const before = this.plugins.get(id);
      if (before === state) continue;
      this.plugins.set(id, state);
      lines.push(`plugin ${id} ${record.version} ${before === undefined ? 'installed, ' : ''}${describeStatus(record)}`);
    }
    for (const id of [...this.plugins.keys()]) {
      if (records.has(id)) continue;
      this.plugins.delete(id);
      lines.push(`plugin ${id} uninstalled`);
    }
    return lines;
  }

  /** The line for a saved session, or none when its status did not change. */
  sessionSaved(session: SessionRecord): string[] {
    if (this.sessions.get(session.session_id) === session.status) return [];
    this.sessions.set(session.session_id, session.status);
    const how = session.launched ? '' : ', agentctl run elsewhere';
    return [`session ${session.session_id} (task ${session.task_id}, ${session.surface}${how}) ${SESSION_WORDS[session.status]}`];
  }
}

const SESSION_WORDS: Record<SessionRecord['status'], string> = {
  starting: 'starting',
  live: 'live: its agentctl is linked',
  dead: 'dead: its agentctl went away',
  stopped: 'stopped',
};

function describeStatus(record: PluginRecord): string {
  switch (record.status) {
    case 'active':
      return 'active';
    case 'registered':
      return 'starting';
    case 'disabled':
      return 'disabled';
    case 'needs_config':
      return 'waiting for its configuration (toolport plugin config set)';
    case 'error':
      return `in error: ${record.last_error ?? 'unknown reason'}`;
  }
}
