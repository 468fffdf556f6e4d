import type { InvocationError } from './errors';
import type { JsonObject } from './json';
import type { AgentToolDeclaration } from './manifest';
import type { PluginRecord } from './plugin-record';
import type { SchemaCompiler } from './schema-compiler';
import type { SessionIdentity, SessionStatus } from './session';

export interface InvocationRequest {
  session: SessionIdentity & { status: SessionStatus };
  /** The record for the requested plugin id, or undefined when none is installed. */
  plugin: PluginRecord | undefined;
  pluginId: string;
  localName: string;
  /** The arguments as received (missing means `{}`). */
  arguments: unknown;
  /** Calls to this plugin in flight right now. */
  inFlight: number;
  maxInFlight: number;
}

export type InvocationDecision =
  | { allowed: true; declaration: AgentToolDeclaration; arguments: JsonObject }
  | { allowed: false; error: InvocationError };

/**
 * The §6 check chain, in order: session live; plugin exists and is active; tool declared;
 * surface allowed; arguments valid; in-flight below the cap.
 */
export function decideInvocation(request: InvocationRequest, schemas: SchemaCompiler): InvocationDecision {
  throw new Error(`not implemented yet: decideInvocation(${request.pluginId}, ${typeof schemas})`);
}

export interface PluginResult {
  text: string;
  structuredContentJson: string;
  isError: boolean;
}

export type ResultCheck =
  | { ok: true; text: string; structuredContent: JsonObject | null; isError: boolean }
  | { ok: false; error: InvocationError };

/**
 * §6 result checks: non-blank text; text + structured bytes ≤ 1 MiB; structured content a JSON
 * object; with an output schema, a non-error result must carry conforming structured content.
 */
export function checkResult(result: PluginResult, declaration: AgentToolDeclaration, schemas: SchemaCompiler): ResultCheck {
  throw new Error(`not implemented yet: checkResult(${result.isError}, ${declaration.name}, ${typeof schemas})`);
}
