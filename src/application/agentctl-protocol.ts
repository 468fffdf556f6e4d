import type { CatalogSnapshot } from '../domain/catalog';
import {
  INVOCATION_ERROR_CODES,
  InvocationError,
  WIRE_ERROR_CODES,
  type InvocationErrorCode,
  type WireErrorCode,
} from '../domain/errors';
import { isJsonObject, type JsonObject, type JsonValue } from '../domain/json';
import { LIMITS } from '../domain/limits';
import type { SessionIdentity } from '../domain/session';
import { isSurface } from '../domain/surfaces';

/**
 * The CONTRACT §7 wire between agentctl and the backend, shared by both ends: frames, the
 * codec, action names and payload shapes. Every decoder returns a typed failure instead of
 * throwing, so a peer's bad frame can never take a connection handler down.
 */

/** Frames larger than this close the socket with 1009. */
export const MAX_FRAME_BYTES = LIMITS.frameBytes;
/** WebSocket close code for an oversized frame. */
export const CLOSE_FRAME_TOO_LARGE = 1009;
/** The path agentctl dials on the backend. */
export const AGENTCTL_WS_PATH = '/api/v1/agentctl/ws';

export const AGENTCTL_ACTIONS = {
  hello: 'agentctl.hello',
  listPluginTools: 'mcp.list_plugin_tools',
  invokePluginTool: 'mcp.invoke_plugin_tool',
} as const;
export type AgentctlAction = (typeof AGENTCTL_ACTIONS)[keyof typeof AGENTCTL_ACTIONS];

export const FRAME_TYPES = ['request', 'response', 'error', 'cancel'] as const;
export type FrameType = (typeof FRAME_TYPES)[number];

/** One §7 frame. `action` is set on requests; `payload` on requests, responses and errors. */
export interface Frame {
  id: string;
  type: FrameType;
  action?: string;
  payload?: JsonValue;
}

/** `agentctl.hello` request: where agentctl's control API listens (and its token, see below). */
export interface HelloRequest {
  control_url: string;
  /**
   * The bearer token of that control API. Additive to §7: an agentctl started elsewhere
   * (`launch: false`) has a token the backend never saw, and needs it to push snapshots.
   */
  control_token?: string;
}

export interface HelloResponse {
  session: SessionIdentity;
}

/** `mcp.list_plugin_tools` answers the full §4 snapshot; agentctl filters by surface. */
export type ListPluginToolsResponse = CatalogSnapshot;

export interface InvokePluginToolRequest {
  plugin_id: string;
  local_name: string;
  arguments: JsonObject;
}

export interface InvokePluginToolResponse {
  invocation_id: string;
  text: string;
  structured_content: JsonObject | null;
  is_error: boolean;
}

/** Payload of an `error` frame; `message` starts with `[<§6 code>] ` so agentctl can show it as is. */
export interface WireError {
  code: WireErrorCode;
  message: string;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

function fail<T>(reason: string): Decoded<T> {
  return { ok: false, reason };
}

export function encodeFrame(frame: Frame): string {
  return JSON.stringify(frame);
}

/** Parses and validates one frame; oversized, non-JSON or ill-shaped input is a failure. */
export function decodeFrame(data: string | Buffer): Decoded<Frame> {
  const size = typeof data === 'string' ? Buffer.byteLength(data, 'utf8') : data.length;
  if (size > MAX_FRAME_BYTES) return fail(`frame of ${size} bytes exceeds ${MAX_FRAME_BYTES}`);
  let value: unknown;
  try {
    value = JSON.parse(typeof data === 'string' ? data : data.toString('utf8'));
  } catch {
    return fail('frame is not JSON');
  }
  if (!isJsonObject(value)) return fail('frame is not a JSON object');
  const { id, type, action, payload } = value;
  if (typeof id !== 'string' || id.length === 0) return fail('frame id must be a non-empty string');
  if (typeof type !== 'string' || !(FRAME_TYPES as readonly string[]).includes(type)) return fail('frame type is not one of request, response, error, cancel');
  if (action !== undefined && typeof action !== 'string') return fail('frame action must be a string');
  if (type === 'request' && typeof action !== 'string') return fail('a request frame needs an action');
  const frame: Frame = { id, type: type as FrameType };
  if (action !== undefined) frame.action = action;
  if (payload !== undefined) frame.payload = payload;
  return { ok: true, value: frame };
}

export function requestFrame(id: string, action: AgentctlAction, payload: JsonValue): Frame {
  return { id, type: 'request', action, payload };
}

export function responseFrame(id: string, payload: JsonValue): Frame {
  return { id, type: 'response', payload };
}

export function errorFrame(id: string, error: WireError): Frame {
  return { id, type: 'error', payload: { code: error.code, message: error.message } };
}

export function cancelFrame(id: string): Frame {
  return { id, type: 'cancel' };
}

/** The error payload for an expected invocation failure (`[CODE] message`). */
export function wireErrorOf(error: InvocationError): WireError {
  return { code: error.wire, message: error.agentText };
}

export function isWireErrorCode(value: unknown): value is WireErrorCode {
  return typeof value === 'string' && (WIRE_ERROR_CODES as readonly string[]).includes(value);
}

/** The §6 code agentctl shows when an error frame's message carries no `[CODE]` prefix. */
const FALLBACK_CODES: Record<WireErrorCode, InvocationErrorCode> = {
  UNAUTHORIZED: 'BACKEND_UNAVAILABLE',
  NOT_FOUND: 'TOOL_NOT_DECLARED',
  UNAVAILABLE: 'PLUGIN_NOT_ACTIVE',
  FORBIDDEN: 'SURFACE_NOT_ALLOWED',
  BAD_REQUEST: 'INVALID_ARGUMENTS',
  TIMEOUT: 'TOOL_TIMEOUT',
  CANCELLED: 'CANCELLED_BY_LIFECYCLE',
  INTERNAL: 'BACKEND_UNAVAILABLE',
};

const PREFIXED = /^\[([A-Z_]+)\]\s?([\s\S]*)$/;

/** Turns an `error` frame payload back into the InvocationError the agent will see. */
export function invocationErrorFromWire(payload: unknown): InvocationError {
  if (!isJsonObject(payload) || !isWireErrorCode(payload.code) || typeof payload.message !== 'string') {
    return new InvocationError('BACKEND_UNAVAILABLE', 'INTERNAL', 'backend sent a malformed error frame');
  }
  const match = PREFIXED.exec(payload.message);
  if (match && (INVOCATION_ERROR_CODES as readonly string[]).includes(match[1])) {
    return new InvocationError(match[1] as InvocationErrorCode, payload.code, match[2]);
  }
  return new InvocationError(FALLBACK_CODES[payload.code], payload.code, payload.message);
}

/** Parses an error frame payload into a WireError (backend or agentctl side). */
export function decodeWireError(payload: unknown): Decoded<WireError> {
  if (!isJsonObject(payload)) return fail('error payload is not an object');
  if (!isWireErrorCode(payload.code)) return fail('error payload has an unknown code');
  if (typeof payload.message !== 'string') return fail('error payload message must be a string');
  return { ok: true, value: { code: payload.code, message: payload.message } };
}

export function decodeHelloRequest(payload: unknown): Decoded<HelloRequest> {
  if (!isJsonObject(payload)) return fail('hello payload is not an object');
  if (typeof payload.control_url !== 'string' || payload.control_url.length === 0) return fail('control_url must be a non-empty string');
  const hello: HelloRequest = { control_url: payload.control_url };
  if (payload.control_token !== undefined) {
    if (typeof payload.control_token !== 'string' || payload.control_token.length === 0) return fail('control_token must be a non-empty string');
    hello.control_token = payload.control_token;
  }
  return { ok: true, value: hello };
}

export function decodeHelloResponse(payload: unknown): Decoded<HelloResponse> {
  if (!isJsonObject(payload) || !isJsonObject(payload.session)) return fail('hello answer has no session object');
  const { task_id, session_id, workspace_id, surface } = payload.session;
  for (const [key, value] of Object.entries({ task_id, session_id, workspace_id })) {
    if (typeof value !== 'string' || value.length === 0) return fail(`session.${key} must be a non-empty string`);
  }
  if (!isSurface(surface)) return fail('session.surface is not a known surface');
  return {
    ok: true,
    value: { session: { task_id: task_id as string, session_id: session_id as string, workspace_id: workspace_id as string, surface } },
  };
}

export function decodeInvokeRequest(payload: unknown): Decoded<InvokePluginToolRequest> {
  if (!isJsonObject(payload)) return fail('invoke payload is not an object');
  const { plugin_id, local_name } = payload;
  if (typeof plugin_id !== 'string' || plugin_id.length === 0) return fail('plugin_id must be a non-empty string');
  if (typeof local_name !== 'string' || local_name.length === 0) return fail('local_name must be a non-empty string');
  const args = payload.arguments === undefined ? {} : payload.arguments;
  if (!isJsonObject(args)) return fail('arguments must be a JSON object');
  return { ok: true, value: { plugin_id, local_name, arguments: args } };
}

export function decodeInvokeResponse(payload: unknown): Decoded<InvokePluginToolResponse> {
  if (!isJsonObject(payload)) return fail('invoke answer is not an object');
  const { invocation_id, text, structured_content, is_error } = payload;
  if (typeof invocation_id !== 'string') return fail('invocation_id must be a string');
  if (typeof text !== 'string') return fail('text must be a string');
  if (typeof is_error !== 'boolean') return fail('is_error must be a boolean');
  if (structured_content !== undefined && structured_content !== null && !isJsonObject(structured_content)) {
    return fail('structured_content must be an object or null');
  }
  return { ok: true, value: { invocation_id, text, structured_content: structured_content ?? null, is_error } };
}
