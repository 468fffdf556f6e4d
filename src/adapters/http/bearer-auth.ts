import type { Socket } from 'node:net';
import type { RequestHandler } from 'express';
import { sendError } from './http-errors';

/**
 * Checks the bearer (the admin token, or a credential of the admin sign-in) before anything else runs (routing, body parsing), and answers
 * every refusal with the same body whatever the path or method, so a caller without the
 * token learns nothing about what exists.
 */
export function requireBearer(
  authorizes: (header: string | undefined) => boolean,
  open: (path: string) => boolean,
  /** Counts the request's connection as authenticated; false when there is no room (503). */
  admit: (socket: Socket) => boolean = () => true,
): RequestHandler {
  return (req, res, next) => {
    if (open(req.path)) return next();
    if (authorizes(req.headers.authorization)) {
      if (admit(req.socket)) return next();
      return sendError(res, 503, 'UNAVAILABLE', 'the backend holds as many connections as it may; try again later');
    }
    res.setHeader('www-authenticate', 'Bearer');
    sendError(res, 401, 'UNAUTHORIZED', 'missing or invalid bearer token');
  };
}
