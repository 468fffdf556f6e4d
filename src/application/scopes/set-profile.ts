import { readProfile } from '../../domain/scope-validation';
import { sameProfile, type Profile } from '../../domain/scopes';
import type { CatalogService } from '../catalog/catalog-service';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';

export interface SetProfileInput {
  name: string;
  /** `{"include": [...], "exclude"?: [...]}` as the operator sent it. */
  body: unknown;
}

/**
 * Creates or replaces a profile (docs/catalog-and-sessions.md, "Scopes") and answers it as
 * stored; PROFILE_INVALID with every violation for a bad name or body. The profile already
 * stored is a no-op; any other is one commit that raises the catalog revision by one, and the
 * sessions using that profile see the change at once.
 */
export class SetProfile {
  constructor(
    private readonly records: PluginRecords,
    private readonly catalog: CatalogService,
    private readonly logger: Logger,
  ) {}

  async execute(input: SetProfileInput): Promise<Profile> {
    const sent = readProfile(input.name, input.body);
    const unchanged = (stored: Profile | undefined) => stored !== undefined && sameProfile(stored, sent);
    if (unchanged((await this.records.transaction((tx) => tx.catalogPolicy())).profiles.get(sent.name))) return sent;
    const saved = await this.catalog.commit(async (tx) => {
      if (unchanged((await tx.catalogPolicy()).profiles.get(sent.name))) return false;
      await tx.saveProfile(sent);
      return true;
    });
    if (saved) this.logger.info({ profile: sent.name, revision: this.catalog.current().revision }, 'profile changed');
    return sent;
  }
}
