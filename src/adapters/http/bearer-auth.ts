import { timingSafeEqual } from 'node:crypto';
import type { RequestHandler } from 'express';
import { sendError } from './http-errors';

/** Compares in constant time so the answer's timing says nothing about the token. */
export function tokenMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
}

export function bearerToken(header: string | undefined): string {
  return header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
}

/**
 * Checks the bearer token before anything else runs (routing, body parsing), and answers
 * every refusal with the same body whatever the path or method, so a caller without the
 * token learns nothing about what exists.
 */
export function requireBearer(expected: () => string, open: (path: string) => boolean): RequestHandler {
  return (req, res, next) => {
    if (open(req.path)) return next();
    if (tokenMatches(bearerToken(req.headers.authorization), expected())) return next();
    res.setHeader('www-authenticate', 'Bearer');
    sendError(res, 401, 'UNAUTHORIZED', 'missing or invalid bearer token');
  };
}
