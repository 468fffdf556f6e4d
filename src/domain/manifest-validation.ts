import type { Violation } from './errors';
import type { PluginManifest } from './manifest';
import type { SchemaCompiler } from './schema-compiler';

export type ManifestValidation = { ok: true; manifest: PluginManifest } | { ok: false; violations: Violation[] };

export interface ManifestValidationOptions {
  schemas: SchemaCompiler;
  /** The running Toolport version, for `min_toolport_version`. */
  toolportVersion: string;
}

/**
 * Validates a parsed `manifest.yaml` value against every rule of CONTRACT §1, reporting every
 * violation at once. Never throws, whatever the input.
 */
export function validateManifest(value: unknown, options: ManifestValidationOptions): ManifestValidation {
  throw new Error(`not implemented yet: validateManifest(${typeof value}, ${options.toolportVersion})`);
}
