import { isJsonObject, type JsonObject } from './json';

/** The MCP content block types a result may carry (docs/plugin-protocol.md §7). */
export const CONTENT_BLOCK_TYPES = ['text', 'image', 'audio', 'resource_link', 'resource'] as const;

export type ContentBlocksParse = { ok: true; blocks: JsonObject[] } | { ok: false; problem: string };

/**
 * Content blocks from their JSON text: a JSON array of objects, each with a string `type`
 * among CONTENT_BLOCK_TYPES. Only the type is checked here; the blocks reach the agent
 * verbatim, and an MCP client judges the rest of a block's shape. `problem` names the first
 * block that is wrong, never quoting more of it than its type.
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
    if (!isJsonObject(block)) return { ok: false, problem: `content[${index}] is not an object` };
    if (typeof block.type !== 'string' || !(CONTENT_BLOCK_TYPES as readonly string[]).includes(block.type)) {
      const given = typeof block.type === 'string' ? `, not ${JSON.stringify(block.type.slice(0, 40))}` : '';
      return { ok: false, problem: `content[${index}].type must be one of ${CONTENT_BLOCK_TYPES.join(', ')}${given}` };
    }
  }
  return { ok: true, blocks: value as JsonObject[] };
}

/** The text block MCP clients show for a result's `text`. */
export function textBlock(text: string): JsonObject {
  return { type: 'text', text };
}
