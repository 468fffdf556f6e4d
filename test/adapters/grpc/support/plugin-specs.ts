import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { PluginLaunchSpec } from '../../../../src/application/ports/plugin-runtime';

/** A fresh data dir per test (TOOLPORT_PLUGIN_DATA_DIR), removed by `removeDataDirs`. */
const created: string[] = [];

export function newDataDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'toolport-plugin-data-'));
  created.push(dir);
  return dir;
}

export function removeDataDirs(): void {
  for (const dir of created.splice(0)) rmSync(dir, { recursive: true, force: true });
}

/** A spec that runs `node <script> ...args` in the script's folder. */
export function nodeScriptSpec(pluginId: string, script: string, dataDir: string, args: string[] = []): PluginLaunchSpec {
  return {
    pluginId,
    version: '1.0.0',
    installDir: join(script, '..'),
    executable: process.execPath,
    args: [script, ...args],
    dataDir,
  };
}
