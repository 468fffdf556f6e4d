import type { ApprovalState, StoredApprovalRequest } from '../../domain/approvals';

/** What a request moves to from `pending`. */
export interface ApprovalSettlement {
  state: Exclude<ApprovalState, 'pending'>;
  decided_by: string | null;
  reason: string | null;
}

/**
 * The operators' approval requests (docs/approvals.md), kept in the store so that any replica's
 * API decides a call another replica holds. A request carries the arguments' hash, never the
 * arguments. Each call is atomic on its own; reads see committed data only. Every method
 * rejects once the store is closed.
 */
export abstract class ApprovalRequests {
  /** Stores a new request (state `pending`); its id is fresh. */
  abstract addApprovalRequest(request: StoredApprovalRequest): Promise<void>;
  /** The request with `id`, whatever its state, or undefined. */
  abstract getApprovalRequest(id: string): Promise<StoredApprovalRequest | undefined>;
  /** The requests still `pending`, oldest first (by `created_at`, then id). */
  abstract listPendingApprovals(): Promise<StoredApprovalRequest[]>;
  /**
   * Moves the request from `pending` to `to`, atomically: of two racing settlements exactly
   * one moves it. Resolves the request as stored afterwards and whether this call moved it
   * (false: it was not pending); undefined when no request has `id`.
   */
  abstract settleApprovalRequest(id: string, to: ApprovalSettlement): Promise<{ moved: boolean; request: StoredApprovalRequest } | undefined>;
  /** Withdraws every pending request held by `holder` (null: every pending request); resolves how many. */
  abstract withdrawApprovalRequests(holder: string | null): Promise<number>;
  /**
   * Removes the requests that are no longer pending (decided, expired or withdrawn) whose
   * `expires_at` is before `expiredBefore` (ISO 8601); resolves how many. A pending request is
   * never removed, however old.
   */
  abstract deleteSettledApprovals(expiredBefore: string): Promise<number>;
}
