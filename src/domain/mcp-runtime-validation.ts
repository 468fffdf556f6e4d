import { CONTROL_CHARACTER_PROBLEM, hasControlCharacters } from './control-characters';
import { secretFields } from './config-fields';
import { isJsonObject, type JsonObject } from './json';
import type { McpStdioRuntimeSpec } from './manifest';
import { placeholdersIn } from './permission-paths';
import { isToolSurface, type ToolSurface } from './surfaces';
import { fieldPath, kindOf, type ViolationList } from './violation-list';

/** The interpreters an MCP server's `runtime.command` may name bare (looked up on the PATH the backend passes on). */
export const BARE_INTERPRETERS = ['node', 'python3'] as const;
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
const DEFAULT_SURFACES: ToolSurface[] = ['kanban-task', 'office-task'];

export interface McpRuntimeContext {
  /** The manifest's `config_schema`, which `${config.KEY}` must name a property of. */
  configSchema: JsonObject | undefined;
  /** Whether the manifest has an `agent_tools` field: an MCP server's tools come from the server. */
  declaresAgentTools: boolean;
  /** Why the command is refused, when it is a path; shared with `runtime.executables`. */
  pathProblem: (path: string) => string | undefined;
}

/**
 * Validates a `runtime` of `type: mcp-stdio` (docs/plugin-protocol.md, MCP servers): `command`
 * a relative path inside the package or `node`/`python3`, `args` a list of text, `env` a map
 * of names (never `TOOLPORT_*`) to text, `surfaces`, `tools` and `auto_accept_tools`;
 * `executables` and the manifest's `agent_tools` absent. `${package}`, `${data_dir}` and
 * `${config.KEY}` (KEY a `config_schema` property) may appear in args and env values, a
 * secret KEY only in env. Returns the spec with defaults applied when it has no violation.
 */
export function validateMcpRuntime(value: JsonObject, violations: ViolationList, context: McpRuntimeContext): McpStdioRuntimeSpec | undefined {
  const before = violations.items.length;
  if (context.declaresAgentTools) violations.add('agent_tools', 'must be absent for an MCP server (runtime.type mcp-stdio): its tools come from the server');
  if (value.executables !== undefined) violations.add('runtime.executables', 'must be absent for an MCP server: it names runtime.command');
  const command = validateCommand(value.command, context);
  const substitution = { properties: propertiesOf(context.configSchema), secrets: secretFields(context.configSchema) };
  const args = validateArgs(value.args, violations, substitution);
  const env = validateEnv(value.env, violations, substitution);
  const surfaces = validateSurfaces(value.surfaces, violations);
  const tools = validateTools(value.tools, violations);
  const autoAccept = value.auto_accept_tools;
  if (autoAccept !== undefined && autoAccept !== null && typeof autoAccept !== 'boolean') {
    violations.add('runtime.auto_accept_tools', `must be true or false, not ${kindOf(autoAccept)}`);
  }
  if (command.problem !== undefined) violations.add('runtime.command', command.problem);
  if (violations.items.length > before) return undefined;
  const spec: McpStdioRuntimeSpec = { type: 'mcp-stdio', command: command.value, args, env, surfaces, auto_accept_tools: autoAccept === true };
  if (tools !== undefined) spec.tools = tools;
  return spec;
}

/** True for a command the host looks up on PATH rather than in the package. */
export function isBareInterpreter(command: string): boolean {
  return (BARE_INTERPRETERS as readonly string[]).includes(command);
}

function validateCommand(value: unknown, context: McpRuntimeContext): { value: string; problem?: string } {
  if (value === undefined || value === null) return { value: '', problem: 'is required for an MCP server' };
  if (typeof value !== 'string') return { value: '', problem: `must be text, not ${kindOf(value)}` };
  if (isBareInterpreter(value)) return { value };
  if (value.includes('${')) return { value, problem: 'must not hold a substitution: it is a path relative to the package (or node or python3)' };
  const problem = context.pathProblem(value);
  return problem === undefined ? { value } : { value, problem: `${problem} (or the bare name node or python3)` };
}

interface SubstitutionRules {
  properties: JsonObject;
  secrets: Set<string>;
}

/** Why `text` cannot be an argument (`secretAllowed` false) or an env value, or undefined. */
function substitutionProblem(text: string, rules: SubstitutionRules, secretAllowed: boolean): string | undefined {
  if (hasControlCharacters(text.replace(/[\t\n]/g, ''))) return CONTROL_CHARACTER_PROBLEM;
  if (text.includes('\0')) return 'must not contain a NUL character';
  for (const { text: found, placeholder } of placeholdersIn(text)) {
    if (placeholder === undefined) return `${found} is not a substitution: use \${package}, \${data_dir} or \${config.KEY}`;
    if (placeholder.kind !== 'config') continue;
    if (!Object.hasOwn(rules.properties, placeholder.key)) return `${found} names no property of config_schema`;
    if (!secretAllowed && rules.secrets.has(placeholder.key)) return `${found} is a secret, which may be substituted only into runtime.env`;
  }
  return undefined;
}

function validateArgs(value: unknown, violations: ViolationList, rules: SubstitutionRules): string[] {
  if (value === undefined || value === null) return [];
  if (!Array.isArray(value)) {
    violations.add('runtime.args', `must be a list of strings, not ${kindOf(value)}`);
    return [];
  }
  const args: string[] = [];
  Array.from(value as unknown[]).forEach((arg, index) => {
    const at = `runtime.args[${index}]`;
    if (typeof arg !== 'string') return violations.add(at, `must be text, not ${kindOf(arg)}`);
    const problem = substitutionProblem(arg, rules, false);
    if (problem !== undefined) return violations.add(at, problem);
    args.push(arg);
  });
  return args;
}

function validateEnv(value: unknown, violations: ViolationList, rules: SubstitutionRules): Record<string, string> {
  const env: Record<string, string> = {};
  if (value === undefined || value === null) return env;
  if (!isJsonObject(value)) {
    violations.add('runtime.env', `must be a mapping of names to text, not ${kindOf(value)}`);
    return env;
  }
  for (const [name, entry] of Object.entries(value)) {
    const at = fieldPath('runtime.env', name);
    if (!ENV_NAME.test(name)) violations.add(at, `must be an environment variable name matching ${ENV_NAME.source}`);
    else if (/^TOOLPORT_/i.test(name)) violations.add(at, "must not set a TOOLPORT_* variable: those are the backend's own");
    else if (typeof entry !== 'string') violations.add(at, `must be text, not ${kindOf(entry)} (quote it in YAML)`);
    else {
      const problem = substitutionProblem(entry, rules, true);
      if (problem !== undefined) violations.add(at, problem);
      else Object.defineProperty(env, name, { value: entry, enumerable: true, writable: true, configurable: true });
    }
  }
  return env;
}

function validateSurfaces(value: unknown, violations: ViolationList): ToolSurface[] {
  const path = 'runtime.surfaces';
  if (value === undefined || value === null) return [...DEFAULT_SURFACES];
  if (!Array.isArray(value)) {
    violations.add(path, `must be a list, not ${kindOf(value)}`);
    return [];
  }
  if (value.length === 0) violations.add(path, 'must not be empty');
  const seen = new Set<ToolSurface>();
  Array.from(value as unknown[]).forEach((surface, index) => {
    const at = `${path}[${index}]`;
    if (!isToolSurface(surface))
      violations.add(at, `unsupported surface ${typeof surface === 'string' ? JSON.stringify(surface.slice(0, 64)) : `(${kindOf(surface)})`}`);
    else if (seen.has(surface)) violations.add(at, `duplicate surface "${surface}"`);
    else seen.add(surface);
  });
  return [...seen].sort();
}

function validateTools(value: unknown, violations: ViolationList): string[] | undefined {
  const path = 'runtime.tools';
  if (value === undefined || value === null) return undefined;
  if (!Array.isArray(value)) {
    violations.add(path, `must be a list of the server's tool names, not ${kindOf(value)}`);
    return undefined;
  }
  const tools: string[] = [];
  const first = new Map<string, number>();
  Array.from(value as unknown[]).forEach((name, index) => {
    const at = `${path}[${index}]`;
    if (typeof name !== 'string' || name === '') return violations.add(at, `must be a tool name, not ${typeof name === 'string' ? 'empty' : kindOf(name)}`);
    const earlier = first.get(name);
    if (earlier !== undefined) return violations.add(at, `duplicate of ${path}[${earlier}]`);
    first.set(name, index);
    tools.push(name);
  });
  return tools;
}

function propertiesOf(schema: JsonObject | undefined): JsonObject {
  return isJsonObject(schema?.properties) ? schema.properties : {};
}
