import { EVERY_WORKSPACE } from './scopes';

const MAX_WORKSPACE_ID_LENGTH = 256;

/**
 * Null for a workspace id the product accepts (as a session's `workspace_id`: a non-empty string
 * of at most 256 characters, not only blanks), else why not. `*` stands for every workspace in a
 * plugin's scope, so it names no single workspace (docs/catalog-and-sessions.md, "Scopes").
 */
export function workspaceIdProblem(id: unknown): string | null {
  if (typeof id !== 'string' || id.trim() === '' || id.length > MAX_WORKSPACE_ID_LENGTH) {
    return `the workspace must be a non-empty string of at most ${MAX_WORKSPACE_ID_LENGTH} characters`;
  }
  if (id === EVERY_WORKSPACE) return `"${EVERY_WORKSPACE}" is not a workspace id: it stands for every workspace`;
  return null;
}
