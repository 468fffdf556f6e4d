import { INVOCATION_ERROR_CODES, InvocationError, type InvocationErrorCode } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';
import type { Frame } from './frames';

/** The error codes of a §7 `error` frame. */
const WIRE_ERROR_CODES = ['UNAUTHORIZED', 'NOT_FOUND', 'UNAVAILABLE', 'FORBIDDEN', 'BAD_REQUEST', 'TIMEOUT', 'CANCELLED', 'INTERNAL'] as const;
export type WireErrorCode = (typeof WIRE_ERROR_CODES)[number];

/**
 * Payload of an `error` frame. `message` is the text the agent sees (`[<§6 code>] …`);
 * `invocation_code` carries that §6 code as data (additive to §7), so agentctl never parses text.
 */
export interface WireError {
  code: WireErrorCode;
  message: string;
  invocation_code: InvocationErrorCode;
}

/** The one table from §6 codes to §7 frame codes. */
const WIRE_CODE: Record<InvocationErrorCode, WireErrorCode> = {
  INVALID_ARGUMENTS: 'BAD_REQUEST',
  SESSION_NOT_LIVE: 'FORBIDDEN',
  PLUGIN_NOT_ACTIVE: 'UNAVAILABLE',
  TOOL_NOT_DECLARED: 'NOT_FOUND',
  SURFACE_NOT_ALLOWED: 'FORBIDDEN',
  PLUGIN_BUSY: 'UNAVAILABLE',
  TOOL_TIMEOUT: 'TIMEOUT',
  PLUGIN_CRASHED: 'UNAVAILABLE',
  PLUGIN_ERROR: 'INTERNAL',
  RESULT_TOO_LARGE: 'INTERNAL',
  BAD_RESULT: 'INTERNAL',
  CANCELLED_BY_LIFECYCLE: 'CANCELLED',
  CANCELLED: 'CANCELLED',
  BACKEND_UNAVAILABLE: 'UNAVAILABLE',
};

/** The §6 code an error frame without `invocation_code` (a peer of another build) stands for. */
const FALLBACK_CODE: Record<WireErrorCode, InvocationErrorCode> = {
  UNAUTHORIZED: 'BACKEND_UNAVAILABLE',
  NOT_FOUND: 'TOOL_NOT_DECLARED',
  UNAVAILABLE: 'PLUGIN_NOT_ACTIVE',
  FORBIDDEN: 'SURFACE_NOT_ALLOWED',
  BAD_REQUEST: 'INVALID_ARGUMENTS',
  TIMEOUT: 'TOOL_TIMEOUT',
  CANCELLED: 'CANCELLED_BY_LIFECYCLE',
  INTERNAL: 'BACKEND_UNAVAILABLE',
};

/** The §7 code for an invocation failure: an unknown plugin is NOT_FOUND, else the table's. */
export function wireCodeOf(error: InvocationError): WireErrorCode {
  return error.missing ? 'NOT_FOUND' : WIRE_CODE[error.code];
}

/** The `error` frame answering request `id` with `error`; `wire` overrides the table (UNAUTHORIZED, INTERNAL). */
export function errorFrame(id: string, error: InvocationError, wire: WireErrorCode = wireCodeOf(error)): Frame {
  const payload: WireError = { code: wire, message: `[${error.code}] ${error.message}`, invocation_code: error.code };
  return { id, type: 'error', payload: { ...payload } };
}

function isWireErrorCode(value: unknown): value is WireErrorCode {
  return typeof value === 'string' && (WIRE_ERROR_CODES as readonly string[]).includes(value);
}

function isInvocationErrorCode(value: unknown): value is InvocationErrorCode {
  return typeof value === 'string' && (INVOCATION_ERROR_CODES as readonly string[]).includes(value);
}

/** Turns an `error` frame payload back into the InvocationError the agent will see. */
export function invocationErrorOf(payload: unknown): InvocationError {
  if (!isJsonObject(payload) || !isWireErrorCode(payload.code) || typeof payload.message !== 'string') {
    return new InvocationError('BACKEND_UNAVAILABLE', 'backend sent a malformed error frame');
  }
  const code = isInvocationErrorCode(payload.invocation_code) ? payload.invocation_code : FALLBACK_CODE[payload.code];
  const prefix = `[${code}] `;
  const message = payload.message.startsWith(prefix) ? payload.message.slice(prefix.length) : payload.message;
  return new InvocationError(code, message, { missing: payload.code === 'NOT_FOUND' && code === 'PLUGIN_NOT_ACTIVE' });
}
