import { mcpSubstitutionViolations, substituteMcpRuntime } from '../../src/domain/mcp-runtime-substitution';
import type { McpStdioRuntimeSpec } from '../../src/domain/manifest';

const runtime: McpStdioRuntimeSpec = {
  type: 'mcp-stdio',
  command: 'node',
  args: ['${package}/index.js', '--port=${config.port}', '--verbose=${config.verbose}', 'plain'],
  env: { MEMORY_FILE_PATH: '${data_dir}/memory.json', TOKEN: '${config.token}' },
  surfaces: ['kanban-task'],
  auto_accept_tools: false,
};
const values = { package: '/pkg/1.0.0', dataDir: '/data/acme', config: { port: 8080, verbose: true, token: 's3cret' } };

describe('substituteMcpRuntime', () => {
  it('replaces every substitution anywhere in args and env values: numbers as JSON, booleans as true/false', () => {
    expect(substituteMcpRuntime(runtime, values)).toEqual({
      ok: true,
      args: ['/pkg/1.0.0/index.js', '--port=8080', '--verbose=true', 'plain'],
      env: { MEMORY_FILE_PATH: '/data/acme/memory.json', TOKEN: 's3cret' },
    });
  });

  it('answers the first KEY with no value and where it is', () => {
    expect(substituteMcpRuntime(runtime, { ...values, config: { port: 1, verbose: false } })).toEqual({
      ok: false,
      missingKey: 'token',
      at: 'runtime.env.TOKEN',
    });
    expect(substituteMcpRuntime(runtime, { ...values, config: {} })).toEqual({ ok: false, missingKey: 'port', at: 'runtime.args[1]' });
  });
});

describe('mcpSubstitutionViolations', () => {
  it('names each KEY without a value once, located by KEY, so the plugin waits in needs_config', () => {
    expect(mcpSubstitutionViolations(runtime, { verbose: true })).toEqual([
      { path: 'port', message: 'needs a value: runtime.args[1] substitutes it' },
      { path: 'token', message: 'needs a value: runtime.env.TOKEN substitutes it' },
    ]);
    expect(mcpSubstitutionViolations(runtime, values.config)).toEqual([]);
  });

  it('has nothing to say of a binary runtime', () => {
    expect(mcpSubstitutionViolations({ type: 'binary', executables: { any: 'x' }, args: ['${config.x}'] }, {})).toEqual([]);
  });
});
