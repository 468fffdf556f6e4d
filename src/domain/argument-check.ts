import { InvocationError } from './errors';
import { utf8ByteLength } from './byte-length';
import { isJsonObject, type JsonObject } from './json';
import { LIMITS } from './limits';
import type { SchemaCompiler, SchemaIssue } from './schema-compiler';

const ISSUES_SHOWN = 5;

export type ArgumentCheck = { ok: true; arguments: JsonObject } | { ok: false; error: InvocationError };

/**
 * docs/invocation.md argument check, shared by agentctl and the backend: missing (undefined or
 * null) means `{}`; anything but a JSON object is invalid; otherwise the value must conform
 * to `inputSchema`, and its compact JSON must stay within 4 MiB. The message names the tool and the failing locations, never a value:
 * `kandev_x_y: /value must be string`.
 */
export function checkArguments(exposedName: string, inputSchema: JsonObject, value: unknown, schemas: SchemaCompiler): ArgumentCheck {
  const args = value === undefined || value === null ? {} : value;
  if (!isJsonObject(args)) return invalid(`${exposedName}: arguments must be an object`);
  const tooLarge = argumentSizeProblem(exposedName, args);
  if (tooLarge) return invalid(tooLarge);
  const compiled = schemas.compile(inputSchema);
  if (!compiled.ok) return invalid(`${exposedName}: its input schema does not compile`);
  const issues = compiled.schema.validate(args);
  if (issues.length > 0) return invalid(`${exposedName}: ${describeIssues(issues, 'arguments')}`);
  return { ok: true, arguments: args };
}

/** Why arguments are too large to send (their compact JSON is over 4 MiB), or undefined. */
export function argumentSizeProblem(exposedName: string, args: JsonObject): string | undefined {
  const bytes = utf8ByteLength(JSON.stringify(args));
  return bytes > LIMITS.argumentBytes ? `${exposedName}: the arguments are ${bytes} bytes of JSON, over the ${LIMITS.argumentBytes}-byte limit` : undefined;
}

/** `"/a must be string; /b must be number"`, at most five, root issues named `rootName`. */
export function describeIssues(issues: SchemaIssue[], rootName: string): string {
  const shown = issues.slice(0, ISSUES_SHOWN).map((issue) => `${issue.instancePath === '' ? rootName : issue.instancePath} ${issue.message}`);
  const more = issues.length > ISSUES_SHOWN ? ` (and ${issues.length - ISSUES_SHOWN} more)` : '';
  return `${shown.join('; ')}${more}`;
}

function invalid(message: string): ArgumentCheck {
  return { ok: false, error: new InvocationError('INVALID_ARGUMENTS', message) };
}
