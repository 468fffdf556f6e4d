import type { Violation } from './errors';
import type { JsonObject } from './json';
import type { PluginRuntimeSpec } from './manifest';
import { expandTemplate, substitutePath, type SubstitutionValues } from './permission-paths';

export type SubstitutedMcpRuntime = { ok: true; args: string[]; env: Record<string, string> } | { ok: false; missingKey: string; at: string };

/**
 * An MCP server's `runtime.args` and `runtime.env` values with each `${package}`,
 * `${data_dir}` and `${config.KEY}` replaced (text as it is, numbers in JSON form, booleans
 * `true`/`false`), as each start does (docs/plugin-protocol.md, MCP servers). Validation has
 * refused any other `${…}` and a secret outside env; a KEY with no value is answered as missing.
 */
export function substituteMcpRuntime(
  runtime: { args: readonly string[]; env: Readonly<Record<string, string>> },
  values: SubstitutionValues,
): SubstitutedMcpRuntime {
  const args: string[] = [];
  for (const [index, template] of runtime.args.entries()) {
    // A list value fills as many arguments as it has elements (docs/mcp-servers.md, bundles).
    const result = expandTemplate(template, values);
    if (!result.ok) return { ok: false, missingKey: result.missingKey, at: `runtime.args[${index}]` };
    args.push(...result.values);
  }
  const env: Record<string, string> = {};
  for (const [name, template] of Object.entries(runtime.env)) {
    const result = substitutePath(template, values);
    if (!result.ok) return { ok: false, missingKey: result.missingKey, at: `runtime.env.${name}` };
    Object.defineProperty(env, name, { value: result.path, enumerable: true, writable: true, configurable: true });
  }
  return { ok: true, args, env };
}

/**
 * One violation per `${config.KEY}` of an MCP server's args and env whose KEY has no usable
 * value (located by KEY, as a configuration violation is): the plugin waits in `needs_config`
 * naming it. Nothing for any other runtime.
 */
export function mcpSubstitutionViolations(runtime: PluginRuntimeSpec | undefined, values: JsonObject): Violation[] {
  if (runtime?.type !== 'mcp-stdio') return [];
  const violations: Violation[] = [];
  const named = new Set<string>();
  const check = (template: string, at: string, expands: boolean): void => {
    const substitution = { package: '', dataDir: '', config: values };
    const result = expands ? expandTemplate(template, substitution) : substitutePath(template, substitution);
    if (result.ok || named.has(result.missingKey)) return;
    named.add(result.missingKey);
    violations.push({ path: result.missingKey, message: `needs a value: ${at} substitutes it` });
  };
  runtime.args.forEach((arg, index) => check(arg, `runtime.args[${index}]`, true));
  for (const [name, value] of Object.entries(runtime.env)) check(value, `runtime.env.${name}`, false);
  return violations;
}
