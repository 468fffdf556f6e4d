import { chmodSync, copyFileSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { writePluginPackage } from '../../../support/packages/plugin-package';

const PING_TOOL = { name: 'ping', description: 'Answers pong.', surfaces: ['kanban-task'], input_schema: { type: 'object' } };

/**
 * An SDK plugin that starts a helper in a session of its own (`setsid`, as a daemon would)
 * and writes `helper-of-<its pid>` holding the helper's pid into its data dir.
 */
export function writeHelperSpawningPlugin(dir: string, id: string): string {
  return writePluginPackage(dir, {
    manifest: { api_version: 1, id, version: '1.0.0', agent_tools: [PING_TOOL] },
    source: `
import { spawn } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '@toolport/plugin-sdk';
const helper = spawn('sleep', ['600'], { detached: true, stdio: 'ignore' });
helper.unref();
writeFileSync(join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'helper-of-' + process.pid), String(helper.pid));
void serve({ tools: { ping: () => 'pong' } });
`,
  });
}

/** An SDK plugin that ignores PLUGIN_CLIENT_CERT and so serves plaintext. */
export function writePlaintextPlugin(dir: string, id: string): string {
  return writePluginPackage(dir, {
    manifest: { api_version: 1, id, version: '1.0.0', agent_tools: [PING_TOOL] },
    source: `
import { serve } from '@toolport/plugin-sdk';
delete process.env.PLUGIN_CLIENT_CERT;
void serve({ tools: { ping: () => 'pong' } });
`,
  });
}

/** An SDK plugin; once `flood-now` appears in its data dir it writes 64 MB on stderr without a newline, then `after the flood`. */
export function writeStderrFloodPlugin(dir: string, id: string): string {
  return writePluginPackage(dir, {
    manifest: { api_version: 1, id, version: '1.0.0', agent_tools: [PING_TOOL] },
    source: `
import { existsSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { serve } from '@toolport/plugin-sdk';
const trigger = join(process.env.TOOLPORT_PLUGIN_DATA_DIR ?? '.', 'flood-now');
const megabyte = 'x'.repeat(1024 * 1024);
setInterval(() => {
  if (!existsSync(trigger)) return;
  rmSync(trigger);
  for (let i = 0; i < 64; i += 1) process.stderr.write(megabyte);
  process.stderr.write('\\nafter the flood\\n');
}, 20);
void serve({ tools: { ping: () => 'pong' } });
`,
  });
}

/** The Go fixture plugin (go-plugin 1.0.1) as an installable package. */
export function writeGoPluginPackage(dir: string, id: string, binary: string): string {
  mkdirSync(dir, { recursive: true });
  copyFileSync(binary, join(dir, 'plugin'));
  chmodSync(join(dir, 'plugin'), 0o755);
  const echo = { name: 'echo', description: 'Echoes its arguments and context.', surfaces: ['kanban-task'], input_schema: { type: 'object' } };
  writeFileSync(
    join(dir, 'manifest.yaml'),
    stringify({ api_version: 1, id, version: '1.0.0', runtime: { type: 'binary', executables: { any: 'plugin' } }, agent_tools: [echo] }),
  );
  return dir;
}
