import { requestView, type ApprovalRequest } from '../../domain/approvals';
import type { ApprovalRequests } from '../ports/approval-requests';
import type { Clock } from '../ports/clock';

/**
 * The requests awaiting an operator's decision, oldest first (docs/approvals.md), whichever
 * replica holds them; one past its expiry is left out even before its holder settles it.
 */
export class ListApprovals {
  constructor(
    private readonly store: ApprovalRequests,
    private readonly clock: Clock,
  ) {}

  async execute(): Promise<ApprovalRequest[]> {
    const now = this.clock.now();
    return (await this.store.listPendingApprovals()).filter((request) => Date.parse(request.expires_at) > now).map(requestView);
  }
}
