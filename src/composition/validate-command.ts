import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { EXIT } from '../adapters/cli/exit-codes';
import { readPackageVersion } from '../adapters/cli/package-version';
import type { CliIo, CommandInput } from '../adapters/cli/program';
import { grantsOf } from '../adapters/cli/commands/plugin-commands';
import { FsPackageSource } from '../adapters/package/fs-package-source';
import type { BundleOptions } from '../domain/mcp-bundle';
import type { PermissionName } from '../domain/permissions';
import { ValidatePackage, type PackageVerdict } from '../application/plugins/validate-package';

/**
 * `toolport plugin validate <package>` (docs/cli.md), without a backend: `ValidatePackage`
 * over the package adapter an install uses, in a private temporary folder removed afterwards.
 * The command only prints the verdict.
 */
export function validateCommand(io: CliIo): (input: CommandInput) => Promise<number> {
  return async (input) => {
    const bundle = { ...(typeof input.options.id === 'string' ? { id: input.options.id } : {}), grants: grantsOf(input) as PermissionName[] };
    const verdict = await validateIn(resolve(input.args[0]), bundle);
    if (input.global.json) {
      io.stdout(`${JSON.stringify({ violations: verdict.violations, warnings: verdict.warnings }, null, 2)}\n`);
    } else {
      for (const warning of verdict.warnings) io.stderr(`warning: ${warning.path}: ${warning.message}\n`);
      if (verdict.violations.length === 0) io.stdout(`${input.args[0]} is a valid package: ${verdict.summary}\n`);
      else io.stderr(`${input.args[0]} is not a valid package:\n${verdict.violations.map((v) => `  ${v.path}: ${v.message}\n`).join('')}`);
    }
    return verdict.violations.length === 0 ? EXIT.ok : EXIT.refused;
  };
}

/** Runs the use case on a package source of its own, in a scratch folder no backend uses. */
async function validateIn(path: string, bundle: BundleOptions): Promise<PackageVerdict> {
  const root = mkdtempSync(join(tmpdir(), 'toolport-validate-'));
  try {
    return await new ValidatePackage(new FsPackageSource(root, new AjvSchemaCompiler(), readPackageVersion())).execute(path, bundle);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
