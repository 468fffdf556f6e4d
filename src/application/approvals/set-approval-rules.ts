import { readApprovalRules } from '../../domain/approval-rules-validation';
import type { ApprovalRule } from '../../domain/approvals';
import type { CatalogService } from '../catalog/catalog-service';
import type { Logger } from '../ports/logger';

/**
 * Replaces the approval rules (docs/approvals.md): the body checked whole against the profiles
 * stored in the same transaction (RULES_INVALID with every violation), then stored. The rules
 * move no catalog revision; calls that start once it resolves meet them, here and, with the
 * change every replica follows, on the others.
 */
export class SetApprovalRules {
  constructor(
    private readonly catalog: CatalogService,
    private readonly logger: Logger,
  ) {}

  async execute(body: unknown): Promise<ApprovalRule[]> {
    const rules = await this.catalog.commit(async (tx) => {
      const profiles = new Set((await tx.catalogPolicy()).profiles.keys());
      const read = readApprovalRules(body, profiles);
      await tx.saveApprovalRules(read);
      return read;
    });
    this.logger.info({ rules: rules.length }, 'approval rules set');
    return rules;
  }
}
