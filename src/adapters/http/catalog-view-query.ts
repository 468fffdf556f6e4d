import { ToolportError } from '../../domain/errors';
import { PROFILE_NAME_PATTERN, type ScopeView } from '../../domain/scopes';
import { SESSION_SURFACES, isSurface } from '../../domain/surfaces';
import { workspaceIdProblem } from '../../domain/workspace-id';

const VIEW_PARAMETERS = ['workspace', 'profile', 'surface'] as const;

/**
 * The view a `GET /api/v1/catalog` query asks for (docs/http-api.md §5): undefined for none of
 * `workspace`, `profile` and `surface` (the whole catalog), the view for all three, and
 * BAD_REQUEST naming every problem otherwise. A well-formed profile that names none is the use
 * case's to refuse (UNKNOWN_PROFILE).
 */
export function catalogViewOf(query: Record<string, unknown>): ScopeView | undefined {
  const given = VIEW_PARAMETERS.filter((name) => query[name] !== undefined);
  if (given.length === 0) return undefined;
  const problems: string[] = [];
  const missing = VIEW_PARAMETERS.filter((name) => !given.includes(name));
  if (missing.length > 0) problems.push(`workspace, profile and surface go together: ${missing.join(' and ')} missing`);
  const { workspace, profile, surface } = query;
  if (workspace !== undefined) {
    const problem = workspaceIdProblem(workspace);
    if (problem) problems.push(`workspace ${problem}`);
  }
  if (profile !== undefined && (typeof profile !== 'string' || !PROFILE_NAME_PATTERN.test(profile))) {
    problems.push(`profile must be a profile name matching ${PROFILE_NAME_PATTERN.source}`);
  }
  if (surface !== undefined && !isSurface(surface)) problems.push(`surface must be one of ${SESSION_SURFACES.join(', ')}`);
  if (problems.length > 0) throw new ToolportError('BAD_REQUEST', problems.join('; '), problems);
  return { workspace: workspace as string, profile: profile as string, surface: surface as ScopeView['surface'] };
}
