import { AjvSchemaCompiler } from '../../src/adapters/ajv/ajv-schema-compiler';
import type { JsonObject } from '../../src/domain/json';
import { validateManifest } from '../../src/domain/manifest-validation';
import { manifestWarnings } from '../../src/domain/manifest-warnings';

const options = { schemas: new AjvSchemaCompiler(), toolportVersion: '1.4.0' };
const configSchema = {
  type: 'object',
  properties: { root: { type: 'string' }, port: { type: 'integer' }, token: { type: 'string', writeOnly: true } },
};

function manifest(runtime: JsonObject, extra: JsonObject = {}): JsonObject {
  return { api_version: 1, id: 'acme.memory', version: '1.0.0', config_schema: configSchema, runtime: { type: 'mcp-stdio', ...runtime }, ...extra };
}

function violationsOf(value: JsonObject) {
  const result = validateManifest(value, options);
  return result.ok ? [] : result.violations;
}

describe('runtime.type mcp-stdio', () => {
  it('accepts a relative command with defaults: no args, no env, both surfaces, every tool, no auto-accept', () => {
    const result = validateManifest(manifest({ command: 'node_modules/.bin/server' }), options);
    expect(result).toMatchObject({
      ok: true,
      manifest: {
        runtime: {
          type: 'mcp-stdio',
          command: 'node_modules/.bin/server',
          args: [],
          env: {},
          surfaces: ['kanban-task', 'office-task'],
          auto_accept_tools: false,
        },
        agent_tools: [],
      },
    });
    expect(result.ok && result.manifest.runtime && 'tools' in result.manifest.runtime).toBe(false);
  });

  it('accepts node and python3 as bare names, with args, env, surfaces, tools and auto-accept', () => {
    const result = validateManifest(
      manifest({
        command: 'node',
        args: ['${package}/dist/index.js', '--root=${config.root}', '${data_dir}', '--port', '${config.port}'],
        env: { MEMORY_FILE_PATH: '${data_dir}/memory.json', API_TOKEN: '${config.token}', PATH: '/usr/bin' },
        surfaces: ['office-task'],
        tools: ['read_graph'],
        auto_accept_tools: true,
      }),
      options,
    );
    expect(result).toMatchObject({
      ok: true,
      manifest: {
        runtime: { command: 'node', surfaces: ['office-task'], tools: ['read_graph'], auto_accept_tools: true, env: { API_TOKEN: '${config.token}' } },
      },
    });
    expect(validateManifest(manifest({ command: 'python3' }), options).ok).toBe(true);
  });

  it.each([
    [undefined, 'is required for an MCP server'],
    [42, 'must be text, not a number'],
    ['/usr/bin/node', 'must be a relative path inside the package, not an absolute one (or the bare name node or python3)'],
    ['../outside', 'must not contain a ".." segment (or the bare name node or python3)'],
    ['', 'must not be empty (or the bare name node or python3)'],
    ['bash', undefined],
    ['${package}/server', 'must not hold a substitution: it is a path relative to the package (or node or python3)'],
  ])('checks command %p', (command, message) => {
    const runtime: JsonObject = command === undefined ? {} : { command };
    const found = violationsOf(manifest(runtime)).filter((v) => v.path === 'runtime.command');
    expect(found).toEqual(message === undefined ? [] : [{ path: 'runtime.command', message }]);
  });

  it('refuses agent_tools and runtime.executables beside an MCP server', () => {
    const violations = violationsOf(
      manifest(
        { command: 'node', executables: { any: 'x' } },
        { agent_tools: [{ name: 'run', description: 'Runs.', surfaces: ['kanban-task'], input_schema: { type: 'object' } }] },
      ),
    );
    expect(violations).toEqual([
      { path: 'agent_tools', message: 'must be absent for an MCP server (runtime.type mcp-stdio): its tools come from the server' },
      { path: 'runtime.executables', message: 'must be absent for an MCP server: it names runtime.command' },
    ]);
  });

  it('refuses a TOOLPORT_* env name, a bad name and a value that is not text', () => {
    const violations = violationsOf(manifest({ command: 'node', env: { TOOLPORT_HOST_TOKEN: 'x', toolport_x: 'y', 'BAD-NAME': 'z', NUM: 3 } }));
    expect(violations).toEqual([
      { path: 'runtime.env.TOOLPORT_HOST_TOKEN', message: "must not set a TOOLPORT_* variable: those are the backend's own" },
      { path: 'runtime.env.toolport_x', message: "must not set a TOOLPORT_* variable: those are the backend's own" },
      { path: 'runtime.env.BAD-NAME', message: 'must be an environment variable name matching ^[A-Za-z_][A-Za-z0-9_]*$' },
      { path: 'runtime.env.NUM', message: 'must be text, not a number (quote it in YAML)' },
    ]);
  });

  it('refuses an unknown substitution, a KEY config_schema lacks, and a secret in args', () => {
    const violations = violationsOf(manifest({ command: 'node', args: ['${HOME}/x', '${config.nope}', '--token=${config.token}'], env: { A: '${user}' } }));
    expect(violations).toEqual([
      { path: 'runtime.args[0]', message: '${HOME} is not a substitution: use ${package}, ${data_dir} or ${config.KEY}' },
      { path: 'runtime.args[1]', message: '${config.nope} names no property of config_schema' },
      { path: 'runtime.args[2]', message: '${config.token} is a secret, which may be substituted only into runtime.env' },
      { path: 'runtime.env.A', message: '${user} is not a substitution: use ${package}, ${data_dir} or ${config.KEY}' },
    ]);
  });

  it('refuses a secret substituted into a permission path', () => {
    const violations = violationsOf(manifest({ command: 'node' }, { permissions: { write_paths: ['${config.token}'] } }));
    expect(violations).toEqual([{ path: 'permissions.write_paths[0]', message: '${config.token} is a secret, which may not be substituted into a path' }]);
  });

  it('checks args, surfaces, tools and auto_accept_tools', () => {
    const violations = violationsOf(
      manifest({ command: 'node', args: 'x', surfaces: ['configuration', 'office-task', 'office-task'], tools: ['a', 'a', 3], auto_accept_tools: 'yes' }),
    );
    expect(violations).toEqual([
      { path: 'runtime.args', message: 'must be a list of strings, not a string' },
      { path: 'runtime.surfaces[0]', message: 'unsupported surface "configuration"' },
      { path: 'runtime.surfaces[2]', message: 'duplicate surface "office-task"' },
      { path: 'runtime.tools[1]', message: 'duplicate of runtime.tools[0]' },
      { path: 'runtime.tools[2]', message: 'must be a tool name, not a number' },
      { path: 'runtime.auto_accept_tools', message: 'must be true or false, not a string' },
    ]);
    expect(violationsOf(manifest({ command: 'node', surfaces: [] }))).toEqual([{ path: 'runtime.surfaces', message: 'must not be empty' }]);
  });

  it('names both runtime types when the type is unknown', () => {
    expect(violationsOf(manifest({ type: 'docker' })).find((v) => v.path === 'runtime.type')).toEqual({
      path: 'runtime.type',
      message: 'must be "binary" or "mcp-stdio"',
    });
  });

  it('warns about unknown runtime fields by the MCP server field names', () => {
    expect(manifestWarnings(manifest({ command: 'node', tool: ['x'], autoaccept_tools: true }))).toEqual([
      { path: 'runtime.tool', message: 'unknown field (did you mean tools?)' },
      { path: 'runtime.autoaccept_tools', message: 'unknown field (did you mean auto_accept_tools?)' },
    ]);
  });
});
