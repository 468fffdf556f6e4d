import fs from 'node:fs/promises';
import path from 'node:path';
import { InvalidPackageError } from '../../domain/errors';
import type { PluginManifest } from '../../domain/manifest';
import { isBareInterpreter } from '../../domain/runtime-validation';

/** This machine's `runtime.executables` key, in Node's names (`linux-x64`, `darwin-arm64`, …). */
export function currentHostKey(): string {
  return `${process.platform}-${process.arch}`;
}

/** The manifest's executable for `hostKey` (else `any`), or undefined when it declares none. */
export function executableFor(manifest: PluginManifest, hostKey: string): { key: string; relative: string } | undefined {
  const runtime = manifest.runtime;
  // An MCP server's command is one for every host; `node` or `python3` is looked up on PATH, not in the package.
  if (runtime?.type === 'mcp-stdio') return isBareInterpreter(runtime.command) ? undefined : { key: 'command', relative: runtime.command };
  const executables = runtime?.executables ?? {};
  for (const key of [hostKey, 'any']) {
    if (Object.prototype.hasOwnProperty.call(executables, key)) return { key, relative: executables[key] };
  }
  return undefined;
}

/**
 * Checks that a package with a runtime can run on this host (an entry for the host key or
 * `any`, naming a file that is in the package) and sets its executable bits, which archives
 * made on some systems lose.
 */
export async function prepareExecutable(root: string, manifest: PluginManifest, hostKey: string): Promise<void> {
  if (!manifest.runtime) return;
  if (manifest.runtime.type === 'mcp-stdio' && isBareInterpreter(manifest.runtime.command)) return;
  const found = executableFor(manifest, hostKey);
  if (!found) {
    throw new InvalidPackageError([{ path: 'runtime.executables', message: `no executable for this host (${hostKey}) and no "any" entry` }]);
  }
  const file = path.join(root, found.relative);
  const stat = await fs.stat(file).catch(() => undefined);
  if (!stat?.isFile()) {
    const at = found.key === 'command' && manifest.runtime.type === 'mcp-stdio' ? 'runtime.command' : `runtime.executables.${found.key}`;
    throw new InvalidPackageError([{ path: at, message: `"${found.relative}" is not a file in the package` }]);
  }
  await fs.chmod(file, (stat.mode & 0o7777) | 0o111);
}
