import type { ApprovalRule } from '../../domain/approvals';
import type { PluginRecords } from '../ports/plugin-records';

/** The stored approval rules, in order (docs/approvals.md); `[]` when none are set. */
export class GetApprovalRules {
  constructor(private readonly records: PluginRecords) {}

  execute(): Promise<ApprovalRule[]> {
    return this.records.transaction((tx) => tx.approvalRules());
  }
}
