import { isJsonObject, type JsonObject } from './json';

/** The MCP content block types a result may carry, with the string fields each must have (docs/plugin-protocol.md, content blocks). */
const REQUIRED_FIELDS = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource_link: ['uri', 'name'],
  resource: [],
} as const satisfies Record<string, readonly string[]>;

export const CONTENT_BLOCK_TYPES = Object.keys(REQUIRED_FIELDS) as Array<keyof typeof REQUIRED_FIELDS>;

export type ContentBlocksParse = { ok: true; blocks: JsonObject[] } | { ok: false; problem: string };

/**
 * Content blocks from their JSON text: a JSON array of objects, each with a string `type`
 * among CONTENT_BLOCK_TYPES and the string fields MCP requires of that type (an embedded
 * `resource` an object with a string `uri` and a string `text` or `blob`). Checked here
 * because an MCP client or server refuses a whole result over one malformed block; the blocks
 * then reach the agent verbatim. `problem` names the first wrong block and field, never
 * quoting more of it than its type.
 */
export function parseContentBlocks(json: string): ContentBlocksParse {
  let value: unknown;
  try {
    value = JSON.parse(json) as unknown;
  } catch {
    return { ok: false, problem: 'content is not JSON' };
  }
  if (!Array.isArray(value)) return { ok: false, problem: 'content is not a JSON array of content blocks' };
  for (const [index, block] of value.entries()) {
    const problem = blockProblem(block);
    if (problem !== null) return { ok: false, problem: `content[${index}]${problem}` };
  }
  return { ok: true, blocks: value as JsonObject[] };
}

function blockProblem(block: unknown): string | null {
  if (!isJsonObject(block)) return ' is not an object';
  const { type } = block;
  if (typeof type !== 'string' || !Object.hasOwn(REQUIRED_FIELDS, type)) {
    const given = typeof type === 'string' ? `, not ${JSON.stringify(type.slice(0, 40))}` : '';
    return `.type must be one of ${CONTENT_BLOCK_TYPES.join(', ')}${given}`;
  }
  for (const field of REQUIRED_FIELDS[type as keyof typeof REQUIRED_FIELDS]) {
    if (typeof block[field] !== 'string') return `.${field} must be a string for type "${type}"`;
  }
  if (type !== 'resource') return null;
  const { resource } = block;
  if (!isJsonObject(resource)) return '.resource must be an object';
  if (typeof resource.uri !== 'string') return '.resource.uri must be a string';
  if (typeof resource.text !== 'string' && typeof resource.blob !== 'string') return '.resource must hold `text` or `blob` as a string';
  return null;
}

/** The text block MCP clients show for a result's `text`. */
export function textBlock(text: string): JsonObject {
  return { type: 'text', text };
}
