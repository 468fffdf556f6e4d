import type { LinkRefusal, LinkRefusalCode } from '../../application/link/link-refusal';
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
  TOOL_NOT_ENABLED: 'FORBIDDEN',
  PLUGIN_BUSY: 'UNAVAILABLE',
  TOOL_TIMEOUT: 'TIMEOUT',
  PLUGIN_CRASHED: 'UNAVAILABLE',
  PLUGIN_ERROR: 'INTERNAL',
  RESULT_TOO_LARGE: 'INTERNAL',
  BAD_RESULT: 'INTERNAL',
  CANCELLED_BY_LIFECYCLE: 'CANCELLED',
  CANCELLED: 'CANCELLED',
  BACKEND_UNAVAILABLE: 'UNAVAILABLE',
  APPROVAL_DENIED: 'FORBIDDEN',
  APPROVAL_TIMEOUT: 'TIMEOUT',
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

/**
 * The one table from the link's refusals to frame codes. Each also names the §6 code such a
 * frame has always carried (`invocation_code`, and the `[CODE]` its message starts with), so
 * peers of earlier builds read it as they did.
 */
const REFUSAL_WIRE: Record<LinkRefusalCode, { code: WireErrorCode; invocation: InvocationErrorCode }> = {
  SESSION_UNKNOWN: { code: 'UNAUTHORIZED', invocation: 'SESSION_NOT_LIVE' },
  SESSION_STOPPED: { code: 'UNAUTHORIZED', invocation: 'SESSION_NOT_LIVE' },
  SESSION_UNVERIFIABLE: { code: 'UNAUTHORIZED', invocation: 'SESSION_NOT_LIVE' },
  PROOF_INVALID: { code: 'UNAUTHORIZED', invocation: 'SESSION_NOT_LIVE' },
  NOT_AUTHENTICATED: { code: 'UNAUTHORIZED', invocation: 'SESSION_NOT_LIVE' },
  MALFORMED_REQUEST: { code: 'BAD_REQUEST', invocation: 'INVALID_ARGUMENTS' },
  REQUEST_TOO_LARGE: { code: 'BAD_REQUEST', invocation: 'INVALID_ARGUMENTS' },
  UNKNOWN_ACTION: { code: 'NOT_FOUND', invocation: 'TOOL_NOT_DECLARED' },
  FOREIGN_IDENTITY: { code: 'FORBIDDEN', invocation: 'SURFACE_NOT_ALLOWED' },
  REQUEST_FAILED: { code: 'INTERNAL', invocation: 'BACKEND_UNAVAILABLE' },
};

/** The `error` frame answering request `id` with a tool call's failure. */
export function errorFrame(id: string, error: InvocationError): Frame {
  return wireError(id, wireCodeOf(error), error.code, error.message);
}

/** The `error` frame answering request `id` with a refusal of the link or of the request. */
export function refusalFrame(id: string, refusal: LinkRefusal): Frame {
  const wire = REFUSAL_WIRE[refusal.code];
  return wireError(id, wire.code, wire.invocation, refusal.message);
}

function wireError(id: string, code: WireErrorCode, invocation: InvocationErrorCode, message: string): Frame {
  const payload: WireError = { code, message: `[${invocation}] ${message}`, invocation_code: invocation };
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
