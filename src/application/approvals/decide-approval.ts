import { decideRequest, decidedView, type ApprovalDecision, type DecidedApprovalRequest } from '../../domain/approvals';
import { ToolportError } from '../../domain/errors';
import type { ApprovalRequests } from '../ports/approval-requests';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { ApprovalDesk } from './approval-desk';

export interface DecideApprovalInput {
  id: string;
  decision: ApprovalDecision;
  reason?: string | null;
}

/**
 * An operator approves or denies one request (docs/approvals.md), once: the store settles it
 * atomically, so of two racing decisions (on any replicas) one wins and the other gets
 * ALREADY_DECIDED; a request that expired or was withdrawn is NOT_FOUND. The call held here
 * learns it at once; a call another replica holds, from the store.
 */
export class DecideApproval {
  constructor(
    private readonly store: ApprovalRequests,
    private readonly desk: ApprovalDesk,
    private readonly clock: Clock,
    private readonly logger: Logger,
  ) {}

  async execute(input: DecideApprovalInput): Promise<DecidedApprovalRequest> {
    const stored = await this.store.getApprovalRequest(input.id);
    if (!stored) throw new ToolportError('NOT_FOUND', `no approval request ${input.id}`);
    const wanted = decideRequest(stored, { decision: input.decision, decided_by: 'admin', reason: input.reason ?? null }, this.clock.now());
    const settled = await this.store.settleApprovalRequest(input.id, {
      state: wanted.state as ApprovalDecision,
      decided_by: wanted.decided_by,
      reason: wanted.reason,
    });
    if (!settled) throw new ToolportError('NOT_FOUND', `no approval request ${input.id}`);
    // Another settlement won the race: say what it was, as a later decision would see it.
    if (!settled.moved) decideRequest(settled.request, { decision: input.decision, decided_by: 'admin' }, this.clock.now());
    this.desk.decided(settled.request);
    this.logger.info({ approval_id: input.id, decision: input.decision, session_id: stored.session_id, tool: stored.tool }, 'approval decided');
    return decidedView(settled.request);
  }
}
