import type { ProfileInUseDetails } from '../../api';
import { rulesNamingProfile } from '../../domain/approvals';
import { ToolportError } from '../../domain/errors';
import { DEFAULT_PROFILE_NAME } from '../../domain/scopes';
import type { CatalogService } from '../catalog/catalog-service';
import type { Logger } from '../ports/logger';
import { findProfile } from './find-profile';

/**
 * Deletes a profile (docs/catalog-and-sessions.md, "Scopes"): PROFILE_PROTECTED for `default`,
 * NOT_FOUND for a name that names none, PROFILE_IN_USE while a session that is not stopped
 * uses it or an approval rule (docs/approvals.md) names it. One commit that raises the catalog
 * revision by one; the rules are checked again inside it.
 */
export class DeleteProfile {
  constructor(
    private readonly catalog: CatalogService,
    private readonly logger: Logger,
  ) {}

  async execute(name: string): Promise<void> {
    if (name === DEFAULT_PROFILE_NAME) throw new ToolportError('PROFILE_PROTECTED', `the ${DEFAULT_PROFILE_NAME} profile can be changed but not deleted`);
    // The checks and the delete are one transaction, as a session's start finds its profile in
    // one: a session is never left with a profile deleted under it, nor a rule naming none.
    await this.catalog.commit(async (tx) => {
      findProfile(await tx.catalogPolicy(), name);
      const users = await tx.sessionsUsingProfile(name);
      const rules = rulesNamingProfile(await tx.approvalRules(), name);
      if (users.length > 0 || rules.length > 0) throw inUse(name, users, rules);
      await tx.deleteProfile(name);
    });
    this.logger.info({ profile: name, revision: this.catalog.current().revision }, 'profile deleted');
  }
}

function inUse(name: string, sessions: string[], rules: number[]): ToolportError {
  const details: ProfileInUseDetails = { sessions, rules };
  const users = [
    ...(sessions.length > 0 ? [`${sessions.length} session(s) that are not stopped: ${sessions.join(', ')}`] : []),
    ...(rules.length > 0 ? [`approval rule(s) ${rules.join(', ')}`] : []),
  ];
  return new ToolportError('PROFILE_IN_USE', `profile ${JSON.stringify(name)} is used by ${users.join(' and ')}`, details);
}
