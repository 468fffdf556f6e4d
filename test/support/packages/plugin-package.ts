import { buildSync } from 'esbuild';
import { chmodSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../processes/toolport-paths';

export interface PluginPackageSpec {
  /** The manifest without `runtime` (it is filled in: one bundled `main.js` for any platform). */
  manifest: Record<string, unknown>;
  /** TypeScript source of the plugin; `import { serve } from '@toolport/plugin-sdk'` works. */
  source: string;
}

/**
 * Writes a complete, self-contained plugin package into `dir`: `manifest.yaml` and a bundled
 * executable `main.js`, the way a plugin author would ship one.
 */
export function writePluginPackage(dir: string, spec: PluginPackageSpec): string {
  mkdirSync(dir, { recursive: true });
  buildSync({
    stdin: { contents: spec.source, resolveDir: REPO_ROOT, loader: 'ts', sourcefile: 'main.ts' },
    bundle: true,
    platform: 'node',
    target: 'node20',
    format: 'cjs',
    outfile: join(dir, 'main.js'),
    alias: { '@toolport/plugin-sdk': join(REPO_ROOT, 'packages/plugin-sdk/src/index.ts') },
    banner: { js: '#!/usr/bin/env node' },
    logLevel: 'error',
  });
  chmodSync(join(dir, 'main.js'), 0o755);
  const manifest = { ...spec.manifest, runtime: { type: 'binary', executables: { any: 'main.js' } } };
  writeFileSync(join(dir, 'manifest.yaml'), stringify(manifest));
  return dir;
}
