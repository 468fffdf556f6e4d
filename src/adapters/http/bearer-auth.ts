import type { RequestHandler } from 'express';
import { sendError } from './http-errors';

/**
 * Checks the bearer (the admin token, or a credential of the admin sign-in) before anything else runs (routing, body parsing), and answers
 * every refusal with the same body whatever the path or method, so a caller without the
 * token learns nothing about what exists.
 */
export function requireBearer(authorizes: (header: string | undefined) => boolean, open: (path: string) => boolean): RequestHandler {
  return (req, res, next) => {
    if (open(req.path)) return next();
    if (authorizes(req.headers.authorization)) return next();
    res.setHeader('www-authenticate', 'Bearer');
    sendError(res, 401, 'UNAUTHORIZED', 'missing or invalid bearer token');
  };
}
