import type Database from 'better-sqlite3';
import type { ApprovalSettlement } from '../../application/ports/approval-requests';
import type { ApprovalRule, ApprovalState, StoredApprovalRequest } from '../../domain/approvals';

const COLUMNS = 'id, session_id, task_id, workspace_id, profile, tool, plugin_id, arguments_sha256, created_at, expires_at, state, decided_by, reason, holder';

/**
 * The approval rules and requests of the SQLite store (schema step 14), as synchronous steps:
 * the store runs each on its queue, or inside an open transaction.
 */
export class SqliteApprovals {
  private readonly s;

  constructor(db: Database.Database) {
    this.s = {
      getRules: db.prepare<[], { rules_json: string }>('SELECT rules_json FROM approval_rules WHERE id = 1'),
      saveRules: db.prepare<[string]>(
        'INSERT INTO approval_rules (id, rules_json) VALUES (1, ?) ON CONFLICT (id) DO UPDATE SET rules_json = excluded.rules_json',
      ),
      insert: db.prepare<StoredApprovalRequest>(
        `INSERT INTO approval_requests (${COLUMNS}) VALUES (${COLUMNS.split(', ')
          .map((c) => `@${c}`)
          .join(', ')})`,
      ),
      get: db.prepare<[string], StoredApprovalRequest>(`SELECT ${COLUMNS} FROM approval_requests WHERE id = ?`),
      pending: db.prepare<[], StoredApprovalRequest>(`SELECT ${COLUMNS} FROM approval_requests WHERE state = 'pending' ORDER BY created_at, id`),
      settle: db.prepare<{ id: string; state: ApprovalState; decided_by: string | null; reason: string | null }>(
        "UPDATE approval_requests SET state = @state, decided_by = @decided_by, reason = @reason WHERE id = @id AND state = 'pending'",
      ),
      withdrawAll: db.prepare<[]>("UPDATE approval_requests SET state = 'withdrawn' WHERE state = 'pending'"),
      withdrawHeld: db.prepare<[string]>("UPDATE approval_requests SET state = 'withdrawn' WHERE state = 'pending' AND holder = ?"),
      deleteSettled: db.prepare<[string]>("DELETE FROM approval_requests WHERE state <> 'pending' AND expires_at < ?"),
    };
  }

  rules(): ApprovalRule[] {
    const row = this.s.getRules.get();
    return row ? (JSON.parse(row.rules_json) as ApprovalRule[]) : [];
  }

  saveRules(rules: readonly ApprovalRule[]): void {
    this.s.saveRules.run(JSON.stringify(rules));
  }

  add(request: StoredApprovalRequest): void {
    this.s.insert.run(request);
  }

  get(id: string): StoredApprovalRequest | undefined {
    return this.s.get.get(id);
  }

  pending(): StoredApprovalRequest[] {
    return this.s.pending.all();
  }

  settle(id: string, to: ApprovalSettlement): { moved: boolean; request: StoredApprovalRequest } | undefined {
    const moved = this.s.settle.run({ id, ...to }).changes === 1;
    const request = this.get(id);
    return request && { moved, request };
  }

  withdraw(holder: string | null): number {
    return (holder === null ? this.s.withdrawAll.run() : this.s.withdrawHeld.run(holder)).changes;
  }

  deleteSettled(expiredBefore: string): number {
    return this.s.deleteSettled.run(expiredBefore).changes;
  }
}
