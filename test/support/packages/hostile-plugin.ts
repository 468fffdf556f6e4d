import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../processes/toolport-paths';
import { writePluginPackage } from './plugin-package';

/** The hostile plugins' tools (test/fixtures/plugins/hostile-attempts.ts), each one attempt. */
export const HOSTILE_TOOLS = [
  'read',
  'list',
  'write',
  'signal',
  'processes',
  'connect',
  'udp',
  'mknod',
  'chown',
  'setuid',
  'survivor',
  'link',
  'exit',
  'self',
] as const;

export type HostileTool = (typeof HOSTILE_TOOLS)[number];

/**
 * Writes the hostile plugin's package into `dir`: the fixture bundled with the SDK into one
 * `main.js`, the way every SDK fixture of the e2e suites is packed, asking for `permissions` (none unless given).
 */
export function writeHostilePlugin(dir: string, id: string, version = '1.0.0', permissions?: Record<string, unknown>): string {
  return writePluginPackage(dir, {
    manifest: {
      api_version: 1,
      id,
      version,
      display_name: 'Hostile plugin',
      ...(permissions ? { permissions } : {}),
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

/**
 * Writes the hostile MCP server's package into `dir`: an `mcp-stdio` plugin whose `server.js`
 * (the fixture bundled into one file) runs under the system's node; its tools are imported from
 * the server at install.
 */
export function writeHostileMcpServer(dir: string, id: string, version = '1.0.0'): string {
  mkdirSync(dir, { recursive: true });
  buildSync({
    entryPoints: [join(REPO_ROOT, 'test/fixtures/plugins/hostile-mcp-server.ts')],
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: join(dir, 'server.js'),
    logLevel: 'error',
  });
  const manifest = {
    api_version: 1,
    id,
    version,
    display_name: 'Hostile MCP server',
    runtime: { type: 'mcp-stdio', command: 'node', args: ['${package}/server.js'] },
  };
  writeFileSync(join(dir, 'manifest.yaml'), stringify(manifest));
  return dir;
}
