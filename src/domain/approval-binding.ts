import { utf8ByteLength } from './byte-length';
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

/** The most of the arguments' canonical JSON an elicitation's message shows, in UTF-8 bytes. */
export const ELICITATION_ARGUMENTS_BYTES = 4096;

/** The form a client fills in to decide a call: one required boolean. */
export type ApprovalSchema = {
  type: 'object';
  properties: { approve: { type: 'boolean' } };
  required: string[];
};

/**
 * The form-mode elicitation that asks an agent's client about one call (docs/approvals.md,
 * client mode): the message names the exposed tool and the plugin and ends with the arguments'
 * canonical JSON, cut at 4096 UTF-8 bytes at a character boundary and then marked `…`.
 */
export function approvalElicitation(tool: string, pluginId: string, args: unknown): { mode: 'form'; message: string; requestedSchema: ApprovalSchema } {
  const shown = cutUtf8(canonicalArguments(args), ELICITATION_ARGUMENTS_BYTES);
  return {
    mode: 'form',
    message: `Allow ${tool} (plugin ${pluginId}) with these arguments? ${shown}`,
    requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
  };
}

/** `text` when it fits in `maxBytes` of UTF-8; otherwise its longest prefix of whole characters that does, then `…`. */
export function cutUtf8(text: string, maxBytes: number): string {
  if (utf8ByteLength(text) <= maxBytes) return text;
  let bytes = 0;
  let end = 0;
  for (const char of text) {
    const size = utf8ByteLength(char);
    if (bytes + size > maxBytes) break;
    bytes += size;
    end += char.length;
  }
  return `${text.slice(0, end)}…`;
}
