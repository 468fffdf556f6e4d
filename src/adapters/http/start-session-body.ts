import type { StartSessionRequest } from '../../application/sessions/start-session-input';
import { ToolportError } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';
import { SESSION_SURFACES, isSurface, type Surface } from '../../domain/surfaces';

const MAX_ID_LENGTH = 256;

/** Reads a `POST /api/v1/sessions` body; BAD_REQUEST naming every field that is wrong otherwise. */
export function startSessionRequestOf(body: unknown): StartSessionRequest {
  if (!isJsonObject(body)) throw new ToolportError('BAD_REQUEST', 'the body must be a JSON object');
  const problems: string[] = [];
  for (const key of ['task_id', 'workspace_id'] as const) {
    const value = body[key];
    if (typeof value !== 'string' || value.trim() === '' || value.length > MAX_ID_LENGTH) {
      problems.push(`${key} must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
    }
  }
  if (!isSurface(body.surface)) problems.push(`surface must be one of ${SESSION_SURFACES.join(', ')}`);
  if (body.launch !== undefined && typeof body.launch !== 'boolean') problems.push('launch must be a boolean');
  if (problems.length > 0) throw new ToolportError('BAD_REQUEST', problems.join('; '), problems);
  return {
    task_id: body.task_id as string,
    workspace_id: body.workspace_id as string,
    surface: body.surface as Surface,
    launch: body.launch !== false,
  };
}
