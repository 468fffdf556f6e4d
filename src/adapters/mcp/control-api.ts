import type { ApplySnapshot, ApplySnapshotResult } from '../../application/agentctl/apply-snapshot';

/** `PUT /api/v1/mcp/plugin-tools` with a parsed body: 400 with the error body when malformed, else 200 with the outcome. */
export function answerPluginTools(applySnapshot: ApplySnapshot, body: unknown): [number, unknown] {
  return answer(applySnapshot.execute(body, 'control'));
}

function answer(result: ApplySnapshotResult): [number, unknown] {
  if (!result.ok) return [400, { error: { code: 'BAD_REQUEST', message: 'malformed snapshot', details: result.violations } }];
  return [200, { outcome: result.outcome, generation: result.generation, revision: result.revision }];
}

export function errorBody(code: string, message: string, details: unknown = null): { error: { code: string; message: string; details: unknown } } {
  return { error: { code, message, details } };
}
