import type { CatalogSnapshot } from '../../domain/catalog';
import { ToolportError } from '../../domain/errors';
import { effectiveTools, type ScopeView } from '../../domain/scopes';
import type { CatalogService } from '../catalog/catalog-service';

/**
 * The effective tools of one view (a workspace, a profile and a surface) as a catalog snapshot
 * with the whole catalog's generation and revision (docs/catalog-and-sessions.md, "Scopes"):
 * what a session of that view lists. UNKNOWN_PROFILE for a profile that does not exist.
 */
export class GetCatalogView {
  constructor(private readonly catalog: CatalogService) {}

  execute(view: ScopeView): CatalogSnapshot {
    // Read together, with no await between: the policy held is the one of this revision.
    const snapshot = this.catalog.current();
    const policy = this.catalog.policy();
    if (!policy.profiles.has(view.profile)) throw new ToolportError('UNKNOWN_PROFILE', `no profile ${JSON.stringify(view.profile)}`);
    return { generation: snapshot.generation, revision: snapshot.revision, tools: effectiveTools(snapshot.tools, policy, view) };
  }
}
