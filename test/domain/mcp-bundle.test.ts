import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import { secretFields } from '../../src/domain/config-fields';
import type { JsonObject } from '../../src/domain/json';
import { validateManifest } from '../../src/domain/manifest-validation';
import { bundleIdFrom, mapBundleManifest, type BundleOptions } from '../../src/domain/mcp-bundle';
import { expandTemplate } from '../../src/domain/permission-paths';
import { mcpSubstitutionViolations, substituteMcpRuntime } from '../../src/domain/mcp-runtime-substitution';

const validation = { schemas: new AjvSchemaCompiler(), toolportVersion: '1.4.0' };

function bundle(overrides: JsonObject = {}): JsonObject {
  return {
    manifest_version: '0.3',
    name: 'hello-world',
    version: '1.0.0',
    description: 'Says hello',
    author: { name: 'A. Author' },
    server: { type: 'node', entry_point: 'server/index.js', mcp_config: { command: 'node', args: ['${__dirname}/server/index.js'] } },
    ...overrides,
  };
}

function mapped(value: JsonObject, options: BundleOptions = {}): JsonObject {
  const result = mapBundleManifest(value, options);
  if (!result.ok) throw new Error(`refused: ${JSON.stringify(result.violations)}`);
  return result.manifest;
}

function violationsOf(value: unknown, options: BundleOptions = {}) {
  const result = mapBundleManifest(value, options);
  return result.ok ? [] : result.violations;
}

function withServer(mcpConfig: JsonObject, type = 'node'): JsonObject {
  return bundle({ server: { type, entry_point: 'x', mcp_config: mcpConfig } });
}

describe('MCP Bundle ids', () => {
  it.each([
    ['hello-world', 'hello-world'],
    ['My Server', 'my-server'],
    ['@scope/Server__Name', 'scope-server__name'],
    ['--Weird!!name..', 'weird-name'],
    ['x'.repeat(70), 'x'.repeat(64)],
    [`${'a'.repeat(63)}-b`, 'a'.repeat(63)],
  ])('"%s" gives the id "%s"', (name, id) => {
    expect(bundleIdFrom(name)).toBe(id);
  });

  it('a name that leaves nothing needs --id, which is then used', () => {
    expect(violationsOf(bundle({ name: '!!!' }))).toEqual([{ path: 'name', message: expect.stringContaining('--id') }]);
    expect(mapped(bundle({ name: '!!!' }), { id: 'chosen' }).id).toBe('chosen');
  });

  it('refuses an --id that breaks the id rule, naming --id', () => {
    expect(violationsOf(bundle(), { id: 'Bad Id' }).map((v) => v.path)).toEqual(['--id']);
  });
});

describe('mapping a bundle manifest', () => {
  it('makes an mcp-stdio plugin that Toolport validation accepts', () => {
    const manifest = mapped(bundle({ display_name: 'Hello' }));
    expect(manifest).toEqual({
      api_version: 1,
      id: 'hello-world',
      version: '1.0.0',
      display_name: 'Hello',
      description: 'Says hello',
      runtime: { type: 'mcp-stdio', command: 'node', args: ['${package}/server/index.js'], env: {} },
    });
    expect(validateManifest(manifest, validation).ok).toBe(true);
  });

  it('display_name falls back to name', () => {
    expect(mapped(bundle()).display_name).toBe('hello-world');
  });

  it.each(['0.2', '0.3', '0.4'])('reads manifest_version %s', (version) => {
    expect(violationsOf(bundle({ manifest_version: version }))).toEqual([]);
  });

  it('reads dxt_version and refuses other spec versions', () => {
    const { manifest_version: _omitted, ...rest } = bundle();
    expect(violationsOf({ ...rest, dxt_version: '0.1' })).toEqual([]);
    expect(violationsOf(bundle({ manifest_version: '0.1' })).map((v) => v.path)).toEqual(['manifest_version']);
    expect(violationsOf(rest).map((v) => v.path)).toEqual(['manifest_version']);
  });

  it('refuses a version that is not semver', () => {
    expect(violationsOf(bundle({ version: 'v1' })).map((v) => v.path)).toEqual(['version']);
  });

  it('refuses the uv server type and unknown ones, naming server.type', () => {
    expect(violationsOf(bundle({ server: { type: 'uv', mcp_config: { command: 'uv' } } }))).toEqual([
      { path: 'server.type', message: expect.stringContaining('"uv" is not supported') },
    ]);
    expect(violationsOf(bundle({ server: { type: 'docker', mcp_config: { command: 'x' } } })).map((v) => v.path)).toEqual(['server.type']);
  });

  it('python means python3; ${__dirname}/P is the relative command P', () => {
    expect((mapped(withServer({ command: 'python', args: ['server/main.py'] }, 'python')).runtime as JsonObject).command).toBe('python3');
    const binary = mapped(withServer({ command: '${__dirname}/bin/server', args: ['--x'] }, 'binary'));
    expect((binary.runtime as JsonObject).command).toBe('bin/server');
    expect(validateManifest(binary, validation).ok).toBe(true);
  });

  it('refuses an absolute command', () => {
    expect(violationsOf(withServer({ command: '/usr/bin/node' })).map((v) => v.path)).toEqual(['server.mcp_config.command']);
  });

  it('maps ${/} and ${pathSeparator} to /, and ${user_config.K} to ${config.K}', () => {
    const manifest = mapped(
      bundle({
        user_config: { depth: { type: 'number', title: 'Depth', description: 'How deep' } },
        server: { type: 'node', mcp_config: { command: 'node', args: ['${__dirname}${/}a${pathSeparator}b.js', '--depth=${user_config.depth}'] } },
      }),
    );
    expect((manifest.runtime as JsonObject).args).toEqual(['${package}/a/b.js', '--depth=${config.depth}']);
  });

  it.each(['HOME', 'DESKTOP', 'DOCUMENTS', 'DOWNLOADS'])('refuses ${%s}, naming the argument', (name) => {
    expect(violationsOf(withServer({ command: 'node', args: ['a.js', `\${${name}}/x`] }))).toEqual([
      { path: 'server.mcp_config.args[1]', message: expect.stringContaining('desktop user') },
    ]);
  });

  it('refuses a substitution MCPB does not define and a user_config key that does not exist', () => {
    expect(violationsOf(withServer({ command: 'node', args: ['${package}/x'] })).map((v) => v.path)).toEqual(['server.mcp_config.args[0]']);
    expect(violationsOf(withServer({ command: 'node', env: { A: '${user_config.nope}' } })).map((v) => v.path)).toEqual(['server.mcp_config.env.A']);
  });

  it('a sensitive value goes only into env, where it is a secret of the config_schema', () => {
    const userConfig = { api_key: { type: 'string', title: 'Key', description: 'API key', sensitive: true, required: true } };
    expect(
      violationsOf(bundle({ user_config: userConfig, server: { type: 'node', mcp_config: { command: 'node', args: ['${user_config.api_key}'] } } })),
    ).toEqual([{ path: 'server.mcp_config.args[0]', message: expect.stringContaining('sensitive') }]);
    const manifest = mapped(
      bundle({ user_config: userConfig, server: { type: 'node', mcp_config: { command: 'node', env: { API_KEY: '${user_config.api_key}' } } } }),
    );
    expect(secretFields(manifest.config_schema as JsonObject)).toEqual(new Set(['api_key']));
    expect((manifest.runtime as JsonObject).env).toEqual({ API_KEY: '${config.api_key}' });
    expect(validateManifest(manifest, validation).ok).toBe(true);
  });

  it('applies the linux platform override, each of command, args and env replacing the base one', () => {
    const manifest = mapped(
      withServer({
        command: 'node',
        args: ['base.js'],
        env: { A: 'a' },
        platform_overrides: { linux: { args: ['linux.js'] }, win32: { command: 'server.exe' } },
      }),
    );
    expect(manifest.runtime).toEqual({ type: 'mcp-stdio', command: 'node', args: ['linux.js'], env: { A: 'a' } });
    expect(violationsOf(withServer({ command: 'node', platform_overrides: { linux: { args: ['${HOME}'] } } })).map((v) => v.path)).toEqual([
      'server.mcp_config.platform_overrides.linux.args[0]',
    ]);
  });

  it('refuses a bundle whose compatibility.platforms lacks linux', () => {
    expect(violationsOf(bundle({ compatibility: { platforms: ['darwin', 'win32'] } })).map((v) => v.path)).toEqual(['compatibility.platforms']);
    expect(violationsOf(bundle({ compatibility: { platforms: ['darwin', 'linux'] } }))).toEqual([]);
  });

  it('refuses what is not a JSON object', () => {
    expect(violationsOf([1])).toEqual([{ path: '(root)', message: expect.stringContaining('a list') }]);
  });
});

describe('user_config as config_schema', () => {
  const userConfig = {
    name: { type: 'string', title: 'Name', description: 'Who', default: 'world' },
    limit: { type: 'number', title: 'Limit', description: 'How many', min: 1, max: 10, default: 5, required: true },
    loud: { type: 'boolean', title: 'Loud', description: 'Shout', default: false },
    root: { type: 'directory', title: 'Root', description: 'Where', required: true },
    extra: { type: 'directory', title: 'Extra', description: 'More', multiple: true },
    db: { type: 'file', title: 'DB', description: 'A file' },
  };
  const args = [
    'x.js',
    '${user_config.name}',
    '${user_config.limit}',
    '${user_config.loud}',
    '${user_config.root}',
    '${user_config.extra}',
    '${user_config.db}',
  ];
  const full = bundle({ user_config: userConfig, server: { type: 'node', mcp_config: { command: 'node', args } } });

  it('maps each type, title, description, required, default and min/max', () => {
    expect(mapped(full).config_schema).toEqual({
      type: 'object',
      additionalProperties: false,
      required: ['limit', 'root'],
      properties: {
        name: { type: 'string', title: 'Name', description: 'Who', default: 'world' },
        limit: { type: 'number', minimum: 1, maximum: 10, title: 'Limit', description: 'How many', default: 5 },
        loud: { type: 'boolean', title: 'Loud', description: 'Shout', default: false },
        root: { type: 'string', pattern: '^/', title: 'Root', description: 'Where' },
        extra: { type: 'array', items: { type: 'string', pattern: '^/' }, title: 'Extra', description: 'More' },
        db: { type: 'string', pattern: '^/', title: 'DB', description: 'A file' },
      },
    });
    expect(validateManifest(mapped(full), validation).ok).toBe(true);
  });

  it('binds directory and file values read-write with write_paths granted', () => {
    expect(mapped(full, { grants: ['write_paths'] }).permissions).toEqual({
      network: false,
      read_paths: [],
      write_paths: ['${config.root}', '${config.extra}', '${config.db}'],
      env: [],
    });
  });

  it('binds them read-only when only read_paths is granted', () => {
    expect(mapped(full, { grants: ['read_paths'] }).permissions).toEqual({
      network: false,
      read_paths: ['${config.root}', '${config.extra}', '${config.db}'],
      write_paths: [],
      env: [],
    });
  });

  it('asks for write_paths when neither is granted (the install then refuses it)', () => {
    expect((mapped(full).permissions as JsonObject).write_paths).toHaveLength(3);
  });

  it('gets the network exactly when it is granted', () => {
    expect(mapped(bundle(), { grants: ['network'] }).permissions).toEqual({ network: true, read_paths: [], write_paths: [], env: [] });
    expect(mapped(bundle()).permissions).toBeUndefined();
  });

  it('names each field it cannot map', () => {
    const bad = {
      a: { type: 'color' },
      b: { type: 'number', sensitive: true },
      c: { type: 'string', multiple: true },
      d: { type: 'string', min: 1 },
      e: { type: 'number', default: 'five' },
      'f}': { type: 'string' },
    };
    expect(violationsOf(bundle({ user_config: bad })).map((v) => v.path)).toEqual([
      'user_config.a.type',
      'user_config.b.sensitive',
      'user_config.c.multiple',
      'user_config.d.min',
      'user_config.e.default',
      'user_config.f}',
    ]);
  });

  it('drops a default holding ${HOME} with a warning naming it', () => {
    const result = mapBundleManifest(bundle({ user_config: { dirs: { type: 'directory', multiple: true, default: ['${HOME}/Desktop'] } } }));
    expect(result.ok && result.warnings.map((w) => w.path)).toEqual(['user_config.dirs.default']);
    expect(result.ok && ((result.manifest.config_schema as JsonObject).properties as JsonObject).dirs).not.toHaveProperty('default');
  });

  it('a multiple value is only ever a whole argument', () => {
    const userConfig = { dirs: { type: 'directory', multiple: true } };
    expect(
      violationsOf(bundle({ user_config: userConfig, server: { type: 'node', mcp_config: { command: 'node', args: ['--dir=${user_config.dirs}'] } } })),
    ).toEqual([{ path: 'server.mcp_config.args[0]', message: expect.stringContaining('whole argument') }]);
  });
});

describe('list values', () => {
  const values = { package: '/pkg', dataDir: '/data', config: { dirs: ['/a', '/b'], one: '/c' } };

  it('an argument that is exactly ${config.K} with a list value becomes one argument per element', () => {
    expect(substituteMcpRuntime({ args: ['x.js', '${config.dirs}', '${config.one}'], env: {} }, values)).toEqual({
      ok: true,
      args: ['x.js', '/a', '/b', '/c'],
      env: {},
    });
    expect(
      mcpSubstitutionViolations(
        { type: 'mcp-stdio', command: 'node', args: ['${config.dirs}'], env: {}, surfaces: [], auto_accept_tools: false },
        values.config,
      ),
    ).toEqual([]);
  });

  it('a path that is exactly ${config.K} with a list value is one path per element; inside other text it has no value', () => {
    expect(expandTemplate('${config.dirs}', values)).toEqual({ ok: true, values: ['/a', '/b'] });
    expect(expandTemplate('${config.dirs}/x', values)).toEqual({ ok: false, missingKey: 'dirs' });
  });
});
