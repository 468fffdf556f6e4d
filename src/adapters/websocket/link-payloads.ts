import {
  CLIENT_APPROVAL_ANSWERS,
  type AgentctlHello,
  type ClientApprovalAnswer,
  type ClientApprovalQuestion,
  type PluginToolAnswer,
  type PluginToolRequest,
  type RefusedCallReport,
} from '../../application/ports/link-messages';
import { isRefusalCode } from '../../domain/call-outcome';
import type { CatalogPush, PushAnswer } from '../../application/ports/catalog-publisher';
import { isJsonObject, type JsonObject } from '../../domain/json';
import type { SessionIdentity } from '../../domain/session';
import { receivedTraceContext } from '../../domain/trace-context';
import { isSurface } from '../../domain/surfaces';
import { fail, type Decoded, type Frame } from './frames';

/**
 * The §7 payloads in their wire form (snake_case JSON) and back. Decoders never throw: a
 * peer's bad payload is a reason, answered with BAD_REQUEST.
 */

/** A SCRAM message longer than this is no SCRAM message (they are under 200 bytes). */
const AUTH_MESSAGE_LIMIT = 1024;

/** `auth.begin`, `auth.finish` and their answers: one SCRAM message (RFC 5802) each. */
export function authPayload(message: string, mechanism?: string): JsonObject {
  return mechanism === undefined ? { message } : { mechanism, message };
}

/** The SCRAM message of an auth payload; `mechanism`, when given, must be the one named. */
export function decodeAuthPayload(payload: unknown, mechanism?: string): Decoded<string> {
  if (!isJsonObject(payload)) return fail('auth payload is not an object');
  if (mechanism !== undefined && payload.mechanism !== mechanism) return fail(`mechanism must be ${JSON.stringify(mechanism)}`);
  const { message } = payload;
  if (typeof message !== 'string' || message.length === 0 || message.length > AUTH_MESSAGE_LIMIT) return fail('message must be a SCRAM message');
  return { ok: true, value: message };
}

/** `agentctl.hello` carries no secret: at most where the agentctl's control API listens. */
export function helloPayload(hello: AgentctlHello): JsonObject {
  return hello.controlUrl === undefined ? {} : { control_url: hello.controlUrl };
}

export function decodeHello(payload: unknown): Decoded<AgentctlHello> {
  if (payload === undefined || payload === null) return { ok: true, value: {} };
  if (!isJsonObject(payload)) return fail('hello payload is not an object');
  if (payload.control_url === undefined || payload.control_url === null) return { ok: true, value: {} };
  if (typeof payload.control_url !== 'string' || payload.control_url.length === 0) return fail('control_url must be a non-empty string');
  return { ok: true, value: { controlUrl: payload.control_url } };
}

export function helloAnswerPayload(session: SessionIdentity): JsonObject {
  const { task_id, session_id, workspace_id, surface } = session;
  return { session: { task_id, session_id, workspace_id, surface } };
}

export function decodeHelloAnswer(payload: unknown): Decoded<SessionIdentity> {
  if (!isJsonObject(payload) || !isJsonObject(payload.session)) return fail('hello answer has no session object');
  const { task_id, session_id, workspace_id, surface } = payload.session;
  for (const [key, value] of Object.entries({ task_id, session_id, workspace_id })) {
    if (typeof value !== 'string' || value.length === 0) return fail(`session.${key} must be a non-empty string`);
  }
  if (!isSurface(surface)) return fail('session.surface is not a known surface');
  return { ok: true, value: { task_id: task_id as string, session_id: session_id as string, workspace_id: workspace_id as string, surface } };
}

export function invokePayload(request: PluginToolRequest): JsonObject {
  const payload: JsonObject = { plugin_id: request.pluginId, local_name: request.localName, arguments: request.arguments };
  if (request.trace) {
    payload.traceparent = request.trace.traceparent;
    if (request.trace.tracestate) payload.tracestate = request.trace.tracestate;
  }
  return payload;
}

export function decodeInvoke(payload: unknown): Decoded<PluginToolRequest> {
  if (!isJsonObject(payload)) return fail('invoke payload is not an object');
  const { plugin_id, local_name } = payload;
  if (typeof plugin_id !== 'string' || plugin_id.length === 0) return fail('plugin_id must be a non-empty string');
  if (typeof local_name !== 'string' || local_name.length === 0) return fail('local_name must be a non-empty string');
  const args = payload.arguments === undefined ? {} : payload.arguments;
  if (!isJsonObject(args)) return fail('arguments must be a JSON object');
  const trace = receivedTraceContext(payload);
  return { ok: true, value: { pluginId: plugin_id, localName: local_name, arguments: args, ...(trace ? { trace } : {}) } };
}

/** `content` only when the result carries its blocks; an agentctl that predates it ignores the field and shows `text`. */
export function invokeAnswerPayload(answer: PluginToolAnswer): JsonObject {
  const payload: JsonObject = { invocation_id: answer.invocationId, text: answer.text, structured_content: answer.structuredContent, is_error: answer.isError };
  if (answer.content) payload.content = answer.content;
  return payload;
}

export function decodeInvokeAnswer(payload: unknown): Decoded<PluginToolAnswer> {
  if (!isJsonObject(payload)) return fail('invoke answer is not an object');
  const { invocation_id, text, structured_content, is_error, content } = payload;
  if (typeof invocation_id !== 'string') return fail('invocation_id must be a string');
  if (typeof text !== 'string') return fail('text must be a string');
  if (typeof is_error !== 'boolean') return fail('is_error must be a boolean');
  if (structured_content !== undefined && structured_content !== null && !isJsonObject(structured_content)) {
    return fail('structured_content must be an object or null');
  }
  const answer: PluginToolAnswer = { invocationId: invocation_id, text, structuredContent: structured_content ?? null, isError: is_error };
  if (content !== undefined && content !== null) {
    if (!Array.isArray(content) || !content.every((block) => isJsonObject(block) && typeof block.type === 'string')) {
      return fail('content must be a list of content blocks, each an object with a string type');
    }
    answer.content = content as JsonObject[];
  }
  return { ok: true, value: answer };
}

/** The longest tool name a refusal report keeps: an agent may send any name. */
export const REFUSED_NAME_LIMIT = 256;

/** `mcp.report_refused_call`: the name, the code and (for a listed tool) its plugin and local name; never arguments. */
export function refusedCallPayload(report: RefusedCallReport): JsonObject {
  const payload: JsonObject = { name: report.name.slice(0, REFUSED_NAME_LIMIT), code: report.code };
  if (report.tool) {
    payload.plugin_id = report.tool.pluginId;
    payload.local_name = report.tool.localName;
  }
  return payload;
}

export function decodeRefusedCall(payload: unknown): Decoded<RefusedCallReport> {
  if (!isJsonObject(payload)) return fail('refused call payload is not an object');
  const { name, code, plugin_id, local_name } = payload;
  if (typeof name !== 'string' || name.length > REFUSED_NAME_LIMIT) return fail(`name must be a string of at most ${REFUSED_NAME_LIMIT} characters`);
  if (!isRefusalCode(code)) return fail('code must be NOT_FOUND or INVALID_ARGUMENTS');
  if (plugin_id === undefined && local_name === undefined) return { ok: true, value: { name, code } };
  if (typeof plugin_id !== 'string' || plugin_id.length === 0 || plugin_id.length > REFUSED_NAME_LIMIT) return fail('plugin_id must be a non-empty string');
  if (typeof local_name !== 'string' || local_name.length === 0 || local_name.length > REFUSED_NAME_LIMIT) return fail('local_name must be a non-empty string');
  return { ok: true, value: { name, code, tool: { pluginId: plugin_id, localName: local_name } } };
}

/** The `catalog.push` payload as JSON text: the §4 snapshot, or a delta naming its base revision. */
export function catalogPushPayloadText(push: CatalogPush): string {
  if ('snapshot' in push) return JSON.stringify(push.snapshot);
  const { generation, revision, baseRevision, upsert, remove } = push.delta;
  return JSON.stringify({ generation, revision, base_revision: baseRevision, upsert, remove });
}

const PUSH_OUTCOMES: readonly string[] = ['applied', 'unchanged', 'stale', 'base_mismatch'];

/** An agentctl's answer frame to `catalog.push`: its outcome, or an Error saying why there is none. */
export function decodePushAnswer(frame: Frame): PushAnswer | Error {
  if (frame.type === 'error') {
    const message = isJsonObject(frame.payload) && typeof frame.payload.message === 'string' ? frame.payload.message : 'refused';
    return new Error(`agentctl refused the push: ${message}`);
  }
  const answer = frame.payload;
  if (!isJsonObject(answer) || typeof answer.outcome !== 'string' || !PUSH_OUTCOMES.includes(answer.outcome))
    return new Error('agentctl answered the push without an outcome');
  if (typeof answer.generation !== 'string' || typeof answer.revision !== 'number')
    return new Error('agentctl answered the push without its generation and revision');
  return { outcome: answer.outcome as PushAnswer['outcome'], generation: answer.generation, revision: answer.revision };
}

/** The agentctl's answer payload to `catalog.push`. */
export function pushAnswerPayload(answer: PushAnswer): JsonObject {
  return { outcome: answer.outcome, generation: answer.generation, revision: answer.revision };
}

/** `mcp.ask_client`: which held invoke it is about, and what the client is to be asked. */
export function askClientPayload(requestId: string, question: ClientApprovalQuestion): JsonObject {
  return { request_id: requestId, tool: question.tool, plugin_id: question.pluginId, timeout_ms: question.timeoutMs };
}

export function decodeAskClient(payload: unknown): Decoded<{ requestId: string; question: ClientApprovalQuestion }> {
  if (!isJsonObject(payload)) return fail('mcp.ask_client payload is not an object');
  const { request_id, tool, plugin_id, timeout_ms } = payload;
  if (typeof request_id !== 'string' || request_id.length === 0) return fail('request_id must be a non-empty string');
  if (typeof tool !== 'string' || tool.length === 0) return fail('tool must be a non-empty string');
  if (typeof plugin_id !== 'string' || plugin_id.length === 0) return fail('plugin_id must be a non-empty string');
  if (typeof timeout_ms !== 'number' || !Number.isSafeInteger(timeout_ms) || timeout_ms <= 0) return fail('timeout_ms must be a positive integer');
  return { ok: true, value: { requestId: request_id, question: { tool, pluginId: plugin_id, timeoutMs: timeout_ms } } };
}

export function clientAnswerPayload(answer: ClientApprovalAnswer): JsonObject {
  return { answer };
}

/** The agentctl's answer to `mcp.ask_client`; an error frame or anything unknown is `unsupported` (an operator decides). */
export function decodeClientAnswer(frame: Frame): ClientApprovalAnswer {
  if (frame.type !== 'response' || !isJsonObject(frame.payload)) return 'unsupported';
  const answer = frame.payload.answer;
  return (CLIENT_APPROVAL_ANSWERS as readonly unknown[]).includes(answer) ? (answer as ClientApprovalAnswer) : 'unsupported';
}
