import { writePluginPackage } from './plugin-package';

/**
 * The manifest of `id` 1.0.0 with one kanban-task tool `name` whose input is `{s: string}`
 * under `schema` (a `pattern`, say).
 */
export function stringToolManifest(id: string, name: string, description: string, schema: Record<string, unknown> = { type: 'string' }) {
  return {
    api_version: 1,
    id,
    version: '1.0.0',
    agent_tools: [{ name, description, surfaces: ['kanban-task'], input_schema: { type: 'object', properties: { s: schema }, required: ['s'] } }],
  };
}

/**
 * A plugin whose one tool `name` (see stringToolManifest) answers `<id> got <length of s>`, so
 * a test sees the value got through.
 */
export function writeStringToolPlugin(dir: string, id: string, name: string, schema: Record<string, unknown>): string {
  return writePluginPackage(dir, {
    manifest: stringToolManifest(id, name, `The ${name} tool of ${id}.`, schema),
    source: `import { serve } from '@toolport/plugin-sdk';\nvoid serve({ tools: { ${name}: (args) => '${id} got ' + String(args.s).length } });\n`,
  });
}
