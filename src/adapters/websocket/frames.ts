import { isJsonObject, type JsonValue } from '../../domain/json';
import { LIMITS } from '../../domain/limits';
import { parseSnapshotText } from '../../domain/snapshot-text';

/**
 * The docs/agentctl.md §7 frames between agentctl and the backend. Every decoder returns a typed
 * failure instead of throwing, so a peer's bad frame can never take a connection handler down.
 */

/** Frames larger than this close the socket with 1009. */
export const MAX_FRAME_BYTES = LIMITS.frameBytes;
/** WebSocket close code after an UNAUTHORIZED error frame. */
export const CLOSE_UNAUTHORIZED = 4401;
/** WebSocket close code of a link replaced by a newer one for the same session. */
export const CLOSE_REPLACED = 4000;
/** The path agentctl dials on the backend. */
export const AGENTCTL_WS_PATH = '/api/v1/agentctl/ws';

export const ACTIONS = {
  /** The link's first two requests: SCRAM-SHA-256, before anything else is accepted. */
  authBegin: 'auth.begin',
  authFinish: 'auth.finish',
  hello: 'agentctl.hello',
  goodbye: 'agentctl.goodbye',
  listPluginTools: 'mcp.list_plugin_tools',
  invokePluginTool: 'mcp.invoke_plugin_tool',
  /** Fire and forget: a call agentctl refused itself. Its answer (or an old backend's error) is dropped. */
  reportRefusedCall: 'mcp.report_refused_call',
  /** Sent by the backend, answered by the agentctl. */
  catalogPush: 'catalog.push',
  /**
   * Sent by the backend about one `mcp.invoke_plugin_tool` it is holding for an approval
   * (docs/approvals.md): the agentctl stops timing the call while it waits and starts again once
   * it may proceed. An agentctl that does not know it answers an error, which is dropped.
   */
  callHeld: 'mcp.call_held',
  /**
   * Sent by the backend about one `mcp.invoke_plugin_tool` a `client` approval rule holds: the
   * agentctl asks its MCP client and answers with the decision (docs/approvals.md, client mode).
   * An error answer (an agentctl that does not know it) counts as `unsupported`.
   */
  askClient: 'mcp.ask_client',
  /**
   * Sent by the backend: the tools of the session's view an approval rule may hold, the whole
   * set each time (docs/approvals.md, "Marked tools"). Answered `{}`; an error answer is dropped.
   */
  approvalMarks: 'approval.marks',
} as const;
export type Action = (typeof ACTIONS)[keyof typeof ACTIONS];

const FRAME_TYPES = ['request', 'response', 'error', 'cancel'] as const;
export type FrameType = (typeof FRAME_TYPES)[number];

/** One §7 frame. `action` is set on requests; `payload` on requests, responses and errors. */
export interface Frame {
  id: string;
  type: FrameType;
  action?: string;
  payload?: JsonValue;
}

export type Decoded<T> = { ok: true; value: T } | { ok: false; reason: string };

export function fail<T>(reason: string): Decoded<T> {
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
    // A snapshot in the payload keeps each tool's text, so a swap compares unchanged tools as text.
    value = parseSnapshotText(typeof data === 'string' ? data : data.toString('utf8'), ['payload']);
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

export function requestFrame(id: string, action: Action, payload: JsonValue): Frame {
  return { id, type: 'request', action, payload };
}

export function responseFrame(id: string, payload: JsonValue): Frame {
  return { id, type: 'response', payload };
}

export function cancelFrame(id: string): Frame {
  return { id, type: 'cancel' };
}
