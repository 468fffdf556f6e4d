import { InvalidPackageError, ToolportError, type Violation } from '../../domain/errors';
import type { BundleOptions } from '../../domain/mcp-bundle';
import type { PackageStaging } from '../ports/package-staging';

/** What an install would say of a package, before any backend holds it. */
export interface PackageVerdict {
  violations: Violation[];
  warnings: Violation[];
  /** `<id> <version>, N tools` when the package is valid. */
  summary?: string;
}

/**
 * `toolport plugin validate` (docs/cli.md): the package is staged by the very code an install
 * stages it with (limits, links, manifest rules, the executable), then discarded, so the
 * verdict is what an install would refuse. Only the checks against other installed plugins
 * (names, versions) need a backend, and are not made here.
 */
export class ValidatePackage {
  constructor(private readonly packages: PackageStaging) {}

  /** `bundle`: an MCP Bundle's `--id`, and the grants its permissions follow. */
  async execute(path: string, bundle: BundleOptions = {}): Promise<PackageVerdict> {
    try {
      const staged = await this.packages.stage(path, undefined, bundle);
      await this.packages.discard(staged);
      const { manifest } = staged;
      const tools = manifest.agent_tools.length;
      return { violations: [], warnings: manifest.warnings ?? [], summary: `${manifest.id} ${manifest.version}, ${tools} tool${tools === 1 ? '' : 's'}` };
    } catch (error) {
      if (error instanceof InvalidPackageError) return { violations: error.violations, warnings: error.warnings };
      if (error instanceof ToolportError) return { violations: [{ path: 'package', message: error.message }], warnings: [] };
      throw error;
    }
  }
}
