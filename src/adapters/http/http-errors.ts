import type { ErrorRequestHandler, Response } from 'express';
import type { ErrorBody } from '../../api';
import { ToolportError, type ErrorCode } from '../../domain/errors';

/** docs/http-api.md status of each code the HTTP API answers with. */
const STATUS: Partial<Record<ErrorCode, number>> = {
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  ALREADY_INSTALLED: 409,
  NAME_COLLISION: 409,
  VERSION_EXISTS: 409,
  CHECKSUM_MISMATCH: 409,
  SESSION_NOT_REISSUABLE: 409,
  PROFILE_IN_USE: 409,
  PROFILE_PROTECTED: 409,
  ALREADY_DECIDED: 409,
  PLUGIN_NOT_ACTIVE: 409,
  INVALID_PACKAGE: 422,
  PLUGIN_START_FAILED: 422,
  CONFIG_INVALID: 422,
  SCOPE_INVALID: 422,
  PROFILE_INVALID: 422,
  UNKNOWN_PROFILE: 422,
  RULES_INVALID: 422,
  PERMISSION_NOT_GRANTED: 422,
  AGENTCTL_START_FAILED: 503,
  STORE_UNAVAILABLE: 503,
  PLUGIN_ERROR: 502,
};

export function sendError(res: Response, status: number, code: string, message: string, details: unknown = null): void {
  res.status(status).json({ error: { code, message, details: details ?? null } } satisfies ErrorBody);
}

/** Maps coded failures once; anything else is a 500 that never leaks its message. */
export function errorHandler(log: (fields: Record<string, unknown>, message: string) => void): ErrorRequestHandler {
  return (error: unknown, _req, res, _next) => {
    if (res.headersSent) return;
    if (error instanceof ToolportError) {
      sendError(res, STATUS[error.code] ?? 500, error.code, error.message, error.details);
      return;
    }
    const parseFailure = error as { type?: string; status?: number; message?: string };
    if (parseFailure.type === 'entity.parse.failed') {
      sendError(res, 400, 'BAD_REQUEST', 'request body is not valid JSON');
      return;
    }
    if (parseFailure.type === 'entity.too.large') {
      sendError(res, 413, 'BAD_REQUEST', 'request body is too large');
      return;
    }
    if (typeof parseFailure.status === 'number' && parseFailure.status >= 400 && parseFailure.status < 500) {
      sendError(res, parseFailure.status, 'BAD_REQUEST', parseFailure.message ?? 'bad request');
      return;
    }
    log({ err: error instanceof Error ? error.message : String(error) }, 'unexpected API failure');
    sendError(res, 500, 'INTERNAL', 'internal error');
  };
}
