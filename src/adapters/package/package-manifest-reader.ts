import fs from 'node:fs/promises';
import path from 'node:path';
import YAML from 'yaml';
import { InvalidPackageError } from '../../domain/errors';
import type { PluginManifest } from '../../domain/manifest';
import { validateManifest } from '../../domain/manifest-validation';
import { manifestWarnings } from '../../domain/manifest-warnings';
import type { SchemaCompiler } from '../../domain/schema-compiler';

export const MANIFEST_FILE = 'manifest.yaml';

export interface ManifestReadOptions {
  schemas: SchemaCompiler;
  toolportVersion: string;
  maxBytes: number;
}

function refuse(message: string): never {
  throw new InvalidPackageError([{ path: MANIFEST_FILE, message }]);
}

/** Reads, parses and validates `<root>/manifest.yaml` (its unknown fields as `warnings`); throws InvalidPackageError. */
export async function readPackageManifest(root: string, options: ManifestReadOptions): Promise<PluginManifest> {
  const file = path.join(root, MANIFEST_FILE);
  const stat = await fs.lstat(file).catch(() => undefined);
  if (!stat) refuse('missing: a package has manifest.yaml at its root');
  if (!stat.isFile()) refuse('must be a regular file');
  if (stat.size > options.maxBytes) refuse(`is ${stat.size} bytes; the limit is ${options.maxBytes}`);
  const text = await fs.readFile(file, 'utf8');
  let value: unknown;
  try {
    value = YAML.parse(text);
  } catch (error) {
    refuse(`is not valid YAML: ${(error as Error).message.split('\n')[0]}`);
  }
  const result = validateManifest(value, { schemas: options.schemas, toolportVersion: options.toolportVersion });
  const warnings = manifestWarnings(value);
  if (!result.ok) throw new InvalidPackageError(result.violations, warnings);
  return warnings.length > 0 ? { ...result.manifest, warnings } : result.manifest;
}
