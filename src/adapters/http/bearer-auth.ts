import type { RequestHandler } from 'express';
import { bearerMatches } from '../shared/bearer';
import { sendError } from './http-errors';

/**
 * Checks the bearer token before anything else runs (routing, body parsing), and answers
 * every refusal with the same body whatever the path or method, so a caller without the
 * token learns nothing about what exists.
 */
export function requireBearer(expected: () => string, open: (path: string) => boolean): RequestHandler {
  return (req, res, next) => {
    if (open(req.path)) return next();
    if (bearerMatches(req.headers.authorization, expected())) return next();
    res.setHeader('www-authenticate', 'Bearer');
    sendError(res, 401, 'UNAUTHORIZED', 'missing or invalid bearer token');
  };
}
