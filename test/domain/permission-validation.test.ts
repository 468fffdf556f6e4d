import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../src/domain/json';
import { validateManifest } from '../../src/domain/manifest-validation';
import { manifestWarnings } from '../../src/domain/manifest-warnings';

const options = { schemas: new AjvSchemaCompiler(), toolportVersion: '1.4.0' };
const configSchema: JsonObject = {
  type: 'object',
  properties: { root: { type: 'string' }, port: { type: 'integer' }, token: { type: 'string', writeOnly: true } },
};

function manifest(permissions: unknown): JsonObject {
  return { api_version: 1, id: 'acme.files', version: '1.0.0', config_schema: configSchema, permissions } as JsonObject;
}

function violations(permissions: unknown): Array<{ path: string; message: string }> {
  const result = validateManifest(manifest(permissions), options);
  return result.ok ? [] : result.violations;
}

describe('validateManifest: permissions', () => {
  it('keeps a valid declaration with every key present', () => {
    const result = validateManifest(
      manifest({ network: true, read_paths: ['/srv/data', '${package}/assets', '${config.root}/in'], env: ['HTTPS_PROXY'] }),
      options,
    );
    expect(result.ok && result.manifest.permissions).toEqual({
      network: true,
      read_paths: ['/srv/data', '${package}/assets', '${config.root}/in'],
      write_paths: [],
      env: ['HTTPS_PROXY'],
    });
  });

  it('leaves a manifest without permissions without them', () => {
    const result = validateManifest({ api_version: 1, id: 'acme.files', version: '1.0.0' }, options);
    expect(result.ok && result.manifest.permissions).toBeUndefined();
  });

  it('refuses a permissions value that is not a mapping, and a network that is not a boolean', () => {
    expect(violations(['network']).map((v) => v.path)).toEqual(['permissions']);
    expect(violations({ network: 'yes' }).map((v) => v.path)).toEqual(['permissions.network']);
  });

  it('names each path that is relative, uses an unknown substitution, or names a missing or secret config key', () => {
    const found = violations({
      read_paths: ['relative/dir', '/ok', '${HOME}/x', '${config.nope}/x'],
      write_paths: ['${config.token}', '/tmp/${unknown}', 'x${package}'],
    });
    expect(found.map((v) => v.path)).toEqual([
      'permissions.read_paths[0]',
      'permissions.read_paths[2]',
      'permissions.read_paths[3]',
      'permissions.write_paths[0]',
      'permissions.write_paths[1]',
      'permissions.write_paths[2]',
    ]);
    expect(found[0]!.message).toMatch(/absolute host path or start with \$\{package\}/);
    expect(found[2]!.message).toMatch(/names no property of config_schema/);
    expect(found[3]!.message).toMatch(/secret/);
  });

  it('accepts a ${config.KEY} of a number property and ${data_dir}', () => {
    expect(violations({ read_paths: ['/srv/${config.port}'], write_paths: ['${data_dir}/cache'] })).toEqual([]);
  });

  it('refuses an entry that is not text, a duplicate, and a list that is not one', () => {
    expect(violations({ read_paths: [3, '/a', '/a'], env: 'PATH' }).map((v) => v.path)).toEqual([
      'permissions.read_paths[0]',
      'permissions.read_paths[2]',
      'permissions.env',
    ]);
  });

  it("refuses env names that are malformed, the backend's own or the exporter's headers", () => {
    const found = violations({
      env: ['GOOD_NAME', '1BAD', 'WITH-DASH', 'TOOLPORT_ADMIN_TOKEN', 'OTEL_EXPORTER_OTLP_HEADERS', 'OTEL_EXPORTER_OTLP_TRACES_HEADERS', 'HOME'],
    });
    expect(found.map((v) => v.path)).toEqual([1, 2, 3, 4, 5, 6].map((index) => `permissions.env[${index}]`));
    expect(found[2]!.message).toMatch(/TOOLPORT_/);
    expect(found[3]!.message).toMatch(/HEADERS/);
  });
});

describe('manifestWarnings: permissions', () => {
  it('warns of an unknown field under permissions, with its likely meaning', () => {
    expect(manifestWarnings(manifest({ networks: true }))).toEqual([{ path: 'permissions.networks', message: 'unknown field (did you mean network?)' }]);
  });
});
