import type { StoredApprovalRequest } from '../../domain/approvals';

/** The approval request columns (schema step 12), in insert order. */
export const APPROVAL_COLUMNS = [
  'id',
  'session_id',
  'task_id',
  'workspace_id',
  'profile',
  'tool',
  'plugin_id',
  'arguments_sha256',
  'created_at',
  'expires_at',
  'state',
  'decided_by',
  'reason',
  'holder',
] as const;

const SELECT = `SELECT ${APPROVAL_COLUMNS.join(', ')} FROM approval_requests`;

/**
 * The approval requests' statements of the shared store. Each is one statement, so a settlement
 * is atomic on its own: `WHERE state = 'pending'` lets exactly one of two racing ones move it.
 * COLLATE "C": ISO 8601 instants order as their characters, whatever the database's locale.
 */
export const approvalQueries = {
  insert: `INSERT INTO approval_requests (${APPROVAL_COLUMNS.join(', ')}) VALUES (${APPROVAL_COLUMNS.map((_, i) => `$${i + 1}`).join(', ')})`,
  get: `${SELECT} WHERE id = $1`,
  pending: `${SELECT} WHERE state = 'pending' ORDER BY created_at COLLATE "C", id COLLATE "C"`,
  settle: `UPDATE approval_requests SET state = $2, decided_by = $3, reason = $4 WHERE id = $1 AND state = 'pending' RETURNING id`,
  withdraw: `UPDATE approval_requests SET state = 'withdrawn' WHERE state = 'pending' AND ($1::text IS NULL OR holder = $1::text) RETURNING id`,
  deleteSettled: `DELETE FROM approval_requests WHERE state <> 'pending' AND expires_at COLLATE "C" < $1::text COLLATE "C" RETURNING id`,
  rules: 'SELECT rules FROM approval_rules WHERE id = 1',
  saveRules: 'INSERT INTO approval_rules (id, rules) VALUES (1, $1) ON CONFLICT (id) DO UPDATE SET rules = excluded.rules',
};

export function approvalValues(request: StoredApprovalRequest): unknown[] {
  return APPROVAL_COLUMNS.map((column) => request[column]);
}

export function approvalFromRow(row: Record<string, unknown>): StoredApprovalRequest {
  return Object.fromEntries(APPROVAL_COLUMNS.map((column) => [column, row[column] ?? null])) as unknown as StoredApprovalRequest;
}
