/** The string fields each kind of block must have (an embedded resource is checked apart). */
const REQUIRED: Record<string, string[]> = {
  text: ['text'],
  image: ['data', 'mimeType'],
  audio: ['data', 'mimeType'],
  resource_link: ['uri', 'name'],
  resource: [],
};

/**
 * `content` as the JSON text of `content_json` ('' when there is none), or the first reason
 * it is not a list of content blocks. The shapes are checked here, where the author can read
 * which block is wrong: an MCP client refuses a whole result over one malformed block.
 */
export function contentJson(content: unknown): { json: string } | { problem: string } {
  if (content === undefined) return { json: '' };
  if (!Array.isArray(content)) return { problem: 'content is not an array of content blocks' };
  for (const [index, block] of content.entries()) {
    const problem = blockProblem(block);
    if (problem) return { problem: `content[${index}]${problem}` };
  }
  if (content.length === 0) return { json: '' };
  try {
    return { json: JSON.stringify(content) };
  } catch {
    return { problem: 'content is not serialisable as JSON' };
  }
}

function blockProblem(value: unknown): string | null {
  if (!value || typeof value !== 'object' || Array.isArray(value)) return ' is not an object';
  const block = value as Record<string, unknown>;
  const fields = typeof block.type === 'string' && Object.hasOwn(REQUIRED, block.type) ? REQUIRED[block.type] : undefined;
  if (!fields) {
    const given = typeof block.type === 'string' ? `, not ${JSON.stringify(block.type.slice(0, 40))}` : '';
    return `.type must be one of ${Object.keys(REQUIRED).join(', ')}${given}`;
  }
  for (const field of fields) if (typeof block[field] !== 'string') return `.${field} must be a string`;
  if (block.type !== 'resource') return null;
  const resource = block.resource as Record<string, unknown> | null | undefined;
  if (!resource || typeof resource !== 'object') return '.resource must be an object';
  if (typeof resource.uri !== 'string') return '.resource.uri must be a string';
  if (typeof resource.text !== 'string' && typeof resource.blob !== 'string') return '.resource must hold `text` or `blob` as a string';
  return null;
}
