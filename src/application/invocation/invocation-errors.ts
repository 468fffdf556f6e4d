import { InvocationError, type InvocationErrorCode, type WireErrorCode } from '../../domain/errors';

/** The §7 frame code for each §6 text code, so every layer builds the same pair. */
const WIRE_CODE: Record<InvocationErrorCode, WireErrorCode> = {
  INVALID_ARGUMENTS: 'BAD_REQUEST',
  SESSION_NOT_LIVE: 'FORBIDDEN',
  PLUGIN_NOT_ACTIVE: 'UNAVAILABLE',
  TOOL_NOT_DECLARED: 'NOT_FOUND',
  SURFACE_NOT_ALLOWED: 'FORBIDDEN',
  PLUGIN_BUSY: 'UNAVAILABLE',
  TOOL_TIMEOUT: 'TIMEOUT',
  PLUGIN_CRASHED: 'UNAVAILABLE',
  RESULT_TOO_LARGE: 'INTERNAL',
  BAD_RESULT: 'INTERNAL',
  CANCELLED_BY_LIFECYCLE: 'CANCELLED',
  CANCELLED: 'CANCELLED',
  BACKEND_UNAVAILABLE: 'UNAVAILABLE',
};

/** An InvocationError with the usual wire code for `code`. */
export function invocationError(code: InvocationErrorCode, message: string): InvocationError {
  return new InvocationError(code, WIRE_CODE[code], message);
}
