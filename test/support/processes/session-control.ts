import { join } from 'node:path';
import Database from 'better-sqlite3';

/**
 * The control API of a launched session's agentctl, read from the backend's SQLite store: the
 * backend hands it out nowhere else, and a test needs it to push snapshots as the backend does.
 */
export function sessionControl(dataDir: string, sessionId: string): { url: string; token: string } {
  const db = new Database(join(dataDir, 'toolport.db'), { readonly: true, fileMustExist: true });
  try {
    const row = db.prepare('SELECT control_url, control_token FROM sessions WHERE session_id = ?').get(sessionId) as
      | { control_url: string | null; control_token: string | null }
      | undefined;
    if (!row?.control_url || !row.control_token) throw new Error(`no control API recorded for ${sessionId}`);
    return { url: row.control_url, token: row.control_token };
  } finally {
    db.close();
  }
}
