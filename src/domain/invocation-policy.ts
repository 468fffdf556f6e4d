import { checkArguments, describeIssues } from './argument-check';
import { utf8ByteLength } from './byte-length';
import { parseContentBlocks } from './content-blocks';
import { InvocationError, type InvocationErrorCode } from './errors';
import { isJsonObject, type JsonObject } from './json';
import { LIMITS } from './limits';
import type { AgentToolDeclaration } from './manifest';
import { DEFAULT_TOOL_PREFIX, exposedToolName } from './naming';
import type { PluginRecord } from './plugin-record';
import type { SchemaCompiler } from './schema-compiler';
import { whyNotInView, type CatalogPolicy } from './scopes';
import type { LinkedSession, SessionStatus } from './session';

export interface InvocationRequest {
  session: LinkedSession & { status: SessionStatus };
  /** The scopes and profiles at the moment of the check (CatalogService.policy()). */
  policy: CatalogPolicy;
  /** The record for the requested plugin id, or undefined when none is installed. */
  plugin: PluginRecord | undefined;
  pluginId: string;
  localName: string;
  /** The arguments as received (missing means `{}`). */
  arguments: unknown;
  /** Calls to this plugin in flight right now, from every session. */
  inFlight: number;
  maxInFlight: number;
  /** Calls to this plugin in flight right now from this session, and its share of the cap. */
  sessionInFlight?: number;
  sessionMaxInFlight?: number;
  /** The tool prefix setting, for the exposed name in messages (default `kandev`). */
  prefix?: string;
}

export type InvocationDecision = { allowed: true; declaration: AgentToolDeclaration; arguments: JsonObject } | { allowed: false; error: InvocationError };

/**
 * The §6 check chain, in order: session live; plugin exists and is active; tool declared;
 * surface allowed; among the session's effective tools (its workspace's scope and its profile);
 * arguments valid; in-flight below the cap.
 */
export function decideInvocation(request: InvocationRequest, schemas: SchemaCompiler): InvocationDecision {
  const { session, plugin, pluginId, localName } = request;
  if (session.status !== 'live') {
    return refuse('SESSION_NOT_LIVE', `session "${session.session_id}" is ${session.status}, not live`);
  }
  if (plugin === undefined) return refuse('PLUGIN_NOT_ACTIVE', `plugin "${pluginId}" is not installed`, { missing: true });
  if (plugin.status !== 'active') return refuse('PLUGIN_NOT_ACTIVE', `plugin "${pluginId}" is ${plugin.status}, not active`);
  const declaration = plugin.manifest.agent_tools.find((tool) => tool.name === localName);
  if (declaration === undefined) {
    return refuse('TOOL_NOT_DECLARED', `plugin "${pluginId}" declares no tool "${localName}"`);
  }
  const exposedName = exposedToolName(request.prefix ?? DEFAULT_TOOL_PREFIX, pluginId, localName);
  if (!(declaration.surfaces as string[]).includes(session.surface)) {
    return refuse('SURFACE_NOT_ALLOWED', `${exposedName} is not available on surface "${session.surface}"`);
  }
  const subject = { plugin_id: pluginId, local_name: localName, exposed_name: exposedName, surfaces: declaration.surfaces };
  const notInView = whyNotInView(subject, request.policy, { workspace: session.workspace_id, profile: session.profile, surface: session.surface });
  if (notInView !== null) return refuse('TOOL_NOT_ENABLED', `${exposedName} is not enabled for this session (${NOT_ENABLED_REASON[notInView]})`);
  const args = checkArguments(exposedName, declaration.input_schema, request.arguments, schemas);
  if (!args.ok) return { allowed: false, error: args.error };
  if (request.inFlight >= request.maxInFlight) {
    return refuse('PLUGIN_BUSY', `plugin "${pluginId}" already has ${request.inFlight} calls in flight (cap ${request.maxInFlight})`);
  }
  // One agent may not take every slot: each session gets its share, so the others still get through.
  const sessionShare = request.sessionMaxInFlight ?? request.maxInFlight;
  if ((request.sessionInFlight ?? 0) >= sessionShare) {
    return refuse(
      'PLUGIN_BUSY',
      `this session already has ${request.sessionInFlight} calls in flight to plugin "${pluginId}" (its share is ${sessionShare} of ${request.maxInFlight})`,
    );
  }
  return { allowed: true, declaration, arguments: args.arguments };
}

/** Why, in words naming no other session's settings. */
const NOT_ENABLED_REASON = {
  surface: `not on the session's surface`,
  workspace: `its plugin is not enabled for the session's workspace`,
  disabled: `disabled for the session's workspace`,
  profile: `not in the session's profile`,
} as const;

function refuse(code: InvocationErrorCode, message: string, options?: { missing?: boolean }): InvocationDecision {
  return { allowed: false, error: new InvocationError(code, message, options) };
}

export interface PluginResult {
  text: string;
  structuredContentJson: string;
  isError: boolean;
  /** Every content block the agent gets, as JSON array text; '' or absent: one text block of `text`. */
  contentJson?: string;
}

export type ResultCheck =
  { ok: true; text: string; structuredContent: JsonObject | null; isError: boolean; content?: JsonObject[] } | { ok: false; error: InvocationError };

/**
 * §6 result checks: text non-blank unless the result carries its content blocks (an MCP
 * server's result needs no text block); content blocks typed; text + content + structured
 * bytes ≤ 1 MiB (resultBytes); structured content a JSON object; with an output schema, a
 * non-error result must carry conforming structured content. A plugin's own error result
 * (is_error) passes through as is once the others hold.
 */
export function checkResult(result: PluginResult, declaration: AgentToolDeclaration, schemas: SchemaCompiler): ResultCheck {
  const tool = `tool "${declaration.name}"`;
  if (typeof result.text !== 'string') return badResult(`${tool} answered without text`);
  let content: JsonObject[] | undefined;
  if (result.contentJson) {
    const parsed = parseContentBlocks(result.contentJson);
    if (!parsed.ok) return badResult(`${tool} answered content the agent cannot read: ${parsed.problem}`);
    content = parsed.blocks;
  } else if (result.text.trim() === '') return badResult(`${tool} answered without text`);
  const structuredJson = result.structuredContentJson ?? '';
  const bytes = resultBytes(result.text, content, structuredJson);
  if (bytes > LIMITS.resultBytes) {
    return { ok: false, error: new InvocationError('RESULT_TOO_LARGE', `${tool} answered ${bytes} bytes, more than ${LIMITS.resultBytes}`) };
  }
  let structuredContent: JsonObject | null = null;
  if (structuredJson !== '') {
    const parsed = parseJson(structuredJson);
    if (!isJsonObject(parsed)) return badResult(`${tool} answered structured content that is not a JSON object`);
    structuredContent = parsed;
  }
  if (declaration.output_schema !== undefined && !result.isError) {
    if (structuredContent === null) return badResult(`${tool} declares an output schema but answered no structured content`);
    const compiled = schemas.compile(declaration.output_schema);
    if (!compiled.ok) return badResult(`${tool}: its output schema does not compile`);
    const issues = compiled.schema.validate(structuredContent);
    if (issues.length > 0) {
      return badResult(`${tool} answered structured content that does not match its output schema: ${describeIssues(issues, 'content')}`);
    }
  }
  const checked: ResultCheck = { ok: true, text: result.text, structuredContent, isError: result.isError };
  if (content) checked.content = content;
  return checked;
}

/**
 * The bytes the result limit counts, for every plugin: UTF-8 of `text`, plus the compact JSON
 * of the content blocks and of the structured content. A leading text block holding `text`
 * itself (a gRPC plugin's) is counted once, as `text`, so a gRPC result counts exactly its
 * `text`, `content_json` and `structured_content_json`. A `text` that is only its text blocks
 * joined (an MCP server's result, docs/plugin-protocol.md) is counted once, as the blocks.
 */
function resultBytes(text: string, content: JsonObject[] | undefined, structuredJson: string): number {
  let blocks = content ?? [];
  let textBytes = utf8ByteLength(text);
  const first = blocks[0];
  if (first && first.type === 'text' && first.text === text) blocks = blocks.slice(1);
  else if (content && text !== '' && text === joinedTextBlocks(content)) textBytes = 0;
  const contentBytes = blocks.length === 0 ? 0 : utf8ByteLength(JSON.stringify(blocks));
  return textBytes + contentBytes + utf8ByteLength(structuredJson);
}

function joinedTextBlocks(blocks: JsonObject[]): string {
  return blocks
    .filter((block) => block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text as string)
    .join('\n');
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}

function badResult(message: string): ResultCheck {
  return { ok: false, error: new InvocationError('BAD_RESULT', message) };
}
