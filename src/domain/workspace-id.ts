import { EVERY_WORKSPACE } from './scopes';

export const WORKSPACE_ID_MAX_LENGTH = 256;

/**
 * What is wrong with `value` as a workspace id, or null: a non-blank string of at most 256
 * characters, and not `*`, which stands for every workspace in a plugin's scope
 * (docs/catalog-and-sessions.md, "Scopes").
 */
export function workspaceIdProblem(value: unknown): string | null {
  if (typeof value !== 'string' || value.trim() === '' || value.length > WORKSPACE_ID_MAX_LENGTH) {
    return `must be a non-empty string of at most ${WORKSPACE_ID_MAX_LENGTH} characters`;
  }
  if (value === EVERY_WORKSPACE) return `must not be "${EVERY_WORKSPACE}", which stands for every workspace`;
  return null;
}
