import type { Request, Response } from 'express';
import type { ApplySnapshot, ApplySnapshotResult } from '../../application/agentctl/apply-snapshot';

/** `PUT /api/v1/mcp/plugin-tools`: 400 with the §9 error body when malformed, else 200 with the outcome. */
export function putPluginTools(applySnapshot: ApplySnapshot) {
  return (req: Request, res: Response): void => {
    const [status, body] = answer(applySnapshot.execute(req.body, 'control'));
    res.status(status).json(body);
  };
}

function answer(result: ApplySnapshotResult): [number, unknown] {
  if (!result.ok) return [400, { error: { code: 'BAD_REQUEST', message: 'malformed snapshot', details: result.violations } }];
  return [200, { outcome: result.outcome, generation: result.generation, revision: result.revision }];
}

export function errorBody(code: string, message: string, details: unknown = null): { error: { code: string; message: string; details: unknown } } {
  return { error: { code, message, details } };
}
