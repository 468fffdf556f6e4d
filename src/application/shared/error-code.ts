import { ToolportError, type ErrorCode } from '../../domain/errors';

/** The stable code of an expected failure, `INTERNAL` for anything else (for logs). */
export function errorCode(error: unknown): ErrorCode {
  return error instanceof ToolportError ? error.code : 'INTERNAL';
}

/** A message safe to log or store: expected failures say what went wrong, others say little. */
export function errorMessage(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
