import type { Request, Response } from 'express';
import type { ApplySnapshot } from '../../application/agentctl/apply-snapshot';

/** `PUT /api/v1/mcp/plugin-tools`: 400 with the §9 error body when malformed, else 200 with the outcome. */
export function putPluginTools(applySnapshot: ApplySnapshot) {
  return (req: Request, res: Response): void => {
    const result = applySnapshot.execute(req.body);
    if (!result.ok) {
      res.status(400).json({ error: { code: 'BAD_REQUEST', message: 'malformed snapshot', details: result.violations } });
      return;
    }
    res.status(200).json({ outcome: result.outcome, generation: result.generation, revision: result.revision });
  };
}

export function errorBody(code: string, message: string, details: unknown = null): { error: { code: string; message: string; details: unknown } } {
  return { error: { code, message, details } };
}
