import { canonicalJson } from './canonical-json';
import type { JsonValue } from './json';
import { sha256Hex } from './tokens';

/**
 * What an approval binds a call to besides its session and tool (docs/approvals.md): the
 * arguments' canonical JSON, keys sorted at every level, and its SHA-256.
 */

/** The arguments' canonical JSON (missing arguments are `{}`): what an approval binds and shows. */
export function canonicalArguments(args: unknown): string {
  return canonicalJson(args === undefined || args === null ? {} : (args as JsonValue));
}

/** SHA-256 hex of the arguments' canonical JSON: the store keeps this, never the arguments. */
export function argumentsSha256(args: unknown): string {
  return sha256Hex(canonicalArguments(args));
}
