import { cpSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { stringify } from 'yaml';
import { REPO_ROOT } from '../processes/toolport-paths';

/**
 * Writes an MCP server plugin package into `dir`: `manifest.yaml` and, under `node_modules`,
 * each of `packages` with its whole dependency closure copied from the repository's own
 * node_modules in the same layout, so Node resolves every import inside the package (a
 * sandboxed server sees nothing else).
 */
export function writeMcpServerPackage(dir: string, manifest: Record<string, unknown>, packages: string[]): string {
  mkdirSync(dir, { recursive: true });
  const copied = new Set<string>();
  const copy = (name: string, from: string): void => {
    const source = resolvePackage(name, from);
    if (copied.has(source)) return;
    copied.add(source);
    const target = join(dir, relative(REPO_ROOT, source));
    mkdirSync(dirname(target), { recursive: true });
    cpSync(source, target, { recursive: true, filter: (path) => !path.slice(source.length).startsWith('/node_modules') });
    const meta = JSON.parse(readFileSync(join(source, 'package.json'), 'utf8')) as {
      dependencies?: Record<string, string>;
      optionalDependencies?: Record<string, string>;
    };
    for (const dependency of Object.keys(meta.dependencies ?? {})) copy(dependency, source);
    for (const dependency of Object.keys(meta.optionalDependencies ?? {})) if (tryResolve(dependency, source)) copy(dependency, source);
  };
  for (const name of packages) copy(name, REPO_ROOT);
  writeFileSync(join(dir, 'manifest.yaml'), stringify(manifest));
  return dir;
}

/** Node's lookup: `<folder>/node_modules/<name>` from `from` up to the repository root. */
function tryResolve(name: string, from: string): string | undefined {
  for (let folder = from; folder.startsWith(REPO_ROOT); folder = dirname(folder)) {
    const candidate = join(folder, 'node_modules', name);
    if (existsSync(join(candidate, 'package.json'))) return candidate;
    if (folder === REPO_ROOT) break;
  }
  return undefined;
}

function resolvePackage(name: string, from: string): string {
  const found = tryResolve(name, from);
  if (!found) throw new Error(`${name} (needed by ${relative(REPO_ROOT, from) || 'the repository'}) is not in node_modules`);
  return found;
}
