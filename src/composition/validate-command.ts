import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { EXIT } from '../adapters/cli/exit-codes';
import { readPackageVersion } from '../adapters/cli/package-version';
import type { CliIo, CommandInput } from '../adapters/cli/program';
import { FsPackageSource } from '../adapters/package/fs-package-source';
import { InvalidPackageError, ToolportError, type Violation } from '../domain/errors';

interface Verdict {
  violations: Violation[];
  warnings: Violation[];
  /** `<id> <version>, N tools` when the package is valid. */
  summary?: string;
}

/**
 * `toolport plugin validate <dir-or-tgz>` (docs/cli.md), without a backend: the package is
 * staged by the very code an install stages it with (limits, links, manifest rules, the
 * executable), in a private temporary folder removed afterwards, so it reports what an install
 * would refuse. Only the checks against other installed plugins (names, versions) need a backend.
 */
export function validateCommand(io: CliIo): (input: CommandInput) => Promise<number> {
  return async (input) => {
    const verdict = await judge(resolve(input.args[0]));
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

async function judge(path: string): Promise<Verdict> {
  const root = mkdtempSync(join(tmpdir(), 'toolport-validate-'));
  try {
    const packages = new FsPackageSource(root, new AjvSchemaCompiler(), readPackageVersion());
    const staged = await packages.stage(path);
    await packages.discard(staged);
    const { manifest } = staged;
    const tools = manifest.agent_tools.length;
    return { violations: [], warnings: manifest.warnings ?? [], summary: `${manifest.id} ${manifest.version}, ${tools} tool${tools === 1 ? '' : 's'}` };
  } catch (error) {
    if (error instanceof InvalidPackageError) return { violations: error.violations, warnings: error.warnings };
    if (error instanceof ToolportError) return { violations: [{ path: 'package', message: error.message }], warnings: [] };
    throw error;
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}
