import { isJsonObject, type JsonObject } from './json';
import type { PluginRuntimeSpec } from './manifest';
import { validateMcpRuntime } from './mcp-runtime-validation';
import { fieldPath, kindOf, type ViolationList } from './violation-list';

/** Node's `process.platform` and `process.arch` values, so a key can name any real host. */
const PLATFORMS = ['aix', 'android', 'cygwin', 'darwin', 'freebsd', 'haiku', 'linux', 'netbsd', 'openbsd', 'sunos', 'win32'];
const ARCHS = ['arm', 'arm64', 'ia32', 'loong64', 'mips', 'mipsel', 'ppc', 'ppc64', 'riscv64', 's390', 's390x', 'x64'];

/** True for `any` or a `<platform>-<arch>` pair in Node's names. */
function isExecutableKey(key: string): boolean {
  if (key === 'any') return true;
  const dash = key.indexOf('-');
  return dash > 0 && PLATFORMS.includes(key.slice(0, dash)) && ARCHS.includes(key.slice(dash + 1));
}

/** Why `path` cannot name a file inside the package, or undefined when it can. */
function executablePathProblem(path: string): string | undefined {
  if (path.trim() === '') return 'must not be empty';
  if (path.includes('\0')) return 'must not contain a NUL character';
  if (/^([/\\]|[a-zA-Z]:)/.test(path)) return 'must be a relative path inside the package, not an absolute one';
  if (path.split(/[/\\]/).includes('..')) return 'must not contain a ".." segment';
  return undefined;
}

export { isBareInterpreter } from './mcp-runtime-validation';

/** What the runtime's rules need of the rest of the manifest. */
export interface RuntimeContext {
  /** Whether the manifest has an `agent_tools` field (an MCP server must not). */
  declaresAgentTools?: boolean;
  /** Its `config_schema`, for `${config.KEY}` in an MCP server's args and env. */
  configSchema?: JsonObject;
}

/**
 * Validates `runtime` (docs/plugin-protocol.md §2); `required` when the manifest declares agent tools.
 * Returns the spec (args defaulted to []) when it has no violation.
 */
export function validateRuntime(value: unknown, required: boolean, violations: ViolationList, context: RuntimeContext = {}): PluginRuntimeSpec | undefined {
  if (value === undefined || value === null) {
    if (required) violations.add('runtime.type', 'is required when agent_tools is present');
    return undefined;
  }
  if (!isJsonObject(value)) {
    violations.add('runtime', `must be a mapping, not ${kindOf(value)}`);
    return undefined;
  }
  if (value.type === 'mcp-stdio') {
    return validateMcpRuntime(value, violations, {
      configSchema: context.configSchema,
      declaresAgentTools: context.declaresAgentTools === true,
      pathProblem: executablePathProblem,
    });
  }
  const before = violations.items.length;
  if (value.type === undefined || value.type === null) violations.add('runtime.type', 'is required');
  else if (value.type !== 'binary') violations.add('runtime.type', 'must be "binary" or "mcp-stdio"');
  const executables = validateExecutables(value.executables, violations);
  const args = validateArgs(value.args, violations);
  if (violations.items.length > before) return undefined;
  return { type: 'binary', executables, args };
}

function validateExecutables(value: unknown, violations: ViolationList): Record<string, string> {
  const path = 'runtime.executables';
  const executables: Record<string, string> = {};
  if (value === undefined || value === null) {
    violations.add(path, 'is required');
    return executables;
  }
  if (!isJsonObject(value)) {
    violations.add(path, `must be a mapping, not ${kindOf(value)}`);
    return executables;
  }
  const keys = Object.keys(value);
  if (keys.length === 0) violations.add(path, 'must name at least one executable');
  for (const key of keys) {
    const at = fieldPath(path, key);
    const target = value[key];
    if (!isExecutableKey(key)) {
      violations.add(at, 'key must be "any" or <platform>-<arch> in Node\'s names (e.g. "linux-x64")');
    } else if (typeof target !== 'string') {
      violations.add(at, `must be a relative path, not ${kindOf(target)}`);
    } else {
      const problem = executablePathProblem(target);
      if (problem !== undefined) violations.add(at, problem);
      // defineProperty: a key such as "__proto__" must stay a plain entry.
      else Object.defineProperty(executables, key, { value: target, enumerable: true, writable: true, configurable: true });
    }
  }
  return executables;
}

function validateArgs(value: unknown, violations: ViolationList): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    violations.add('runtime.args', `must be a list of strings, not ${kindOf(value)}`);
    return [];
  }
  const args: string[] = [];
  Array.from(value).forEach((arg: unknown, index) => {
    if (typeof arg === 'string') args.push(arg);
    else violations.add(`runtime.args[${index}]`, `must be text, not ${kindOf(arg)}`);
  });
  return args;
}
