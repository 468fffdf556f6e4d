import type { StartSessionRequest } from '../../application/sessions/start-session-input';
import { ToolportError } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';
import { PROFILE_NAME_PATTERN } from '../../domain/scopes';
import { SESSION_SURFACES, isSurface, type Surface } from '../../domain/surfaces';
import { WORKSPACE_ID_MAX_LENGTH, workspaceIdProblem } from '../../domain/workspace-id';

const MAX_ID_LENGTH = WORKSPACE_ID_MAX_LENGTH;

/** Reads a `POST /api/v1/sessions` body; BAD_REQUEST naming every field that is wrong otherwise. */
export function startSessionRequestOf(body: unknown): StartSessionRequest {
  if (!isJsonObject(body)) throw new ToolportError('BAD_REQUEST', 'the body must be a JSON object');
  const problems: string[] = [];
  const task = body.task_id;
  if (typeof task !== 'string' || task.trim() === '' || task.length > MAX_ID_LENGTH) {
    problems.push(`task_id must be a non-empty string of at most ${MAX_ID_LENGTH} characters`);
  }
  const workspaceProblem = workspaceIdProblem(body.workspace_id);
  if (workspaceProblem) problems.push(`workspace_id ${workspaceProblem}`);
  if (!isSurface(body.surface)) problems.push(`surface must be one of ${SESSION_SURFACES.join(', ')}`);
  if (body.launch !== undefined && typeof body.launch !== 'boolean') problems.push('launch must be a boolean');
  // A well-formed name that names no profile is the use case's to refuse (UNKNOWN_PROFILE).
  if (body.profile !== undefined && (typeof body.profile !== 'string' || !PROFILE_NAME_PATTERN.test(body.profile))) {
    problems.push(`profile must be a profile name matching ${PROFILE_NAME_PATTERN.source}`);
  }
  if (problems.length > 0) throw new ToolportError('BAD_REQUEST', problems.join('; '), problems);
  return {
    task_id: body.task_id as string,
    workspace_id: body.workspace_id as string,
    surface: body.surface as Surface,
    ...(body.profile === undefined ? {} : { profile: body.profile as string }),
    launch: body.launch !== false,
  };
}
