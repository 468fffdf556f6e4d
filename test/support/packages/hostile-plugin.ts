import { writePluginPackage } from './plugin-package';

/** The hostile plugin's tools (test/fixtures/plugins/hostile-plugin.ts), each one attempt. */
export const HOSTILE_TOOLS = ['read', 'list', 'write', 'signal', 'processes', 'connect', 'udp', 'mknod', 'chown', 'setuid', 'survivor', 'self'] as const;

export type HostileTool = (typeof HOSTILE_TOOLS)[number];

/**
 * Writes the hostile plugin's package into `dir`: the fixture bundled with the SDK into one
 * `main.js`, the way every SDK fixture of the e2e suites is packed. It asks for no permission.
 */
export function writeHostilePlugin(dir: string, id: string, version = '1.0.0'): string {
  return writePluginPackage(dir, {
    manifest: {
      api_version: 1,
      id,
      version,
      display_name: 'Hostile plugin',
      agent_tools: HOSTILE_TOOLS.map((name) => ({
        name,
        description: `Tries the ${name} attempt and answers what happened.`,
        surfaces: ['kanban-task'],
        input_schema: { type: 'object', additionalProperties: true },
      })),
    },
    source: `import './test/fixtures/plugins/hostile-plugin';`,
  });
}
