import { writePluginPackage } from './plugin-package';

/**
 * A plugin with one kanban-task tool `name` whose input is `{s: string}` under `schema` (a
 * `pattern`, say), answering `<id> got <length of s>`, so a test sees the value got through.
 */
export function writeStringToolPlugin(dir: string, id: string, name: string, schema: Record<string, unknown>): string {
  return writePluginPackage(dir, {
    manifest: {
      api_version: 1,
      id,
      version: '1.0.0',
      agent_tools: [
        {
          name,
          description: `The ${name} tool of ${id}.`,
          surfaces: ['kanban-task'],
          input_schema: { type: 'object', properties: { s: schema }, required: ['s'] },
        },
      ],
    },
    source: `import { serve } from '@toolport/plugin-sdk';\nvoid serve({ tools: { ${name}: (args) => '${id} got ' + String(args.s).length } });\n`,
  });
}
