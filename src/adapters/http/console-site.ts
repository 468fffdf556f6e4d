import { existsSync } from 'node:fs';
import { join } from 'node:path';
import express, { Router } from 'express';
import { sendError } from './http-errors';

/**
 * The console's policy: its own built files only, no inline script or style, no framing, and
 * API calls to this origin alone.
 */
export const CONSOLE_CSP = [
  "default-src 'self'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "form-action 'self'",
  "frame-ancestors 'none'",
].join('; ');

/** True for the paths the console's files are served on, which need no token (the page signs in). */
export function isConsolePath(path: string): boolean {
  return path === '/console' || path.startsWith('/console/');
}

/**
 * Serves the console's built files (`dist/console`) under `/console/`, each with the strict
 * policy; `/console` redirects there. Without a build, a clear 404 says how to make one.
 */
export function consoleSite(dir: string): Router {
  const router = Router();
  router.use('/console', (_req, res, next) => {
    res.set({
      'content-security-policy': CONSOLE_CSP,
      'x-frame-options': 'DENY',
      'x-content-type-options': 'nosniff',
      'referrer-policy': 'no-referrer',
      'cache-control': 'no-cache',
    });
    next();
  });
  router.get('/console', (req, res, next) => {
    if (req.originalUrl !== '/console') return next();
    res.redirect(301, '/console/');
  });
  if (!existsSync(join(dir, 'index.html'))) {
    router.use('/console', (_req, res) => sendError(res, 404, 'NOT_FOUND', 'the console is not built: run `npm run build`'));
    return router;
  }
  router.use('/console', express.static(dir, { index: 'index.html', redirect: true, etag: true, dotfiles: 'ignore' }));
  return router;
}
