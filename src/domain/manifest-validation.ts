import { CONTROL_CHARACTER_PROBLEM, hasControlCharacters } from './control-characters';
import { secretDeclarations } from './config-fields';
import { validateAgentTool } from './agent-tool-validation';
import type { Violation } from './errors';
import { isJsonObject, type JsonObject } from './json';
import { LIMITS } from './limits';
import type { AgentToolDeclaration, PluginManifest } from './manifest';
import { isPlainJson } from './plain-json';
import { validateRuntime } from './runtime-validation';
import type { SchemaCompiler } from './schema-compiler';
import { compareSemver, isSemver, parseSemver } from './semver';
import { kindOf, ViolationList } from './violation-list';
import { GRANTING_CAPABILITIES } from './host-capabilities';
import { schemaProblems } from './schema-rules';
import { validatePermissions } from './permission-validation';

export type ManifestValidation = { ok: true; manifest: PluginManifest } | { ok: false; violations: Violation[] };

export interface ManifestValidationOptions {
  schemas: SchemaCompiler;
  /** The running Toolport version, for `min_toolport_version`. */
  toolportVersion: string;
}

const PLUGIN_ID_PATTERN = /^[a-z0-9][a-z0-9._-]{0,63}$/;
/** The path of a violation about the manifest as a whole. */
const ROOT_PATH = '(root)';

/** True for an id that §1 accepts. */
export function isPluginId(value: unknown): value is string {
  return typeof value === 'string' && PLUGIN_ID_PATTERN.test(value) && !/[._-]$/.test(value);
}

/**
 * Validates a parsed `manifest.yaml` value against every rule of docs/plugin-protocol.md §2, reporting every
 * violation at once. Never throws, whatever the input.
 */
export function validateManifest(value: unknown, options: ManifestValidationOptions): ManifestValidation {
  try {
    return validate(value, options);
  } catch (error) {
    // Last line of defence for inputs no rule anticipated (e.g. a getter that throws).
    const reason = error instanceof Error ? error.message : String(error);
    return { ok: false, violations: [{ path: ROOT_PATH, message: `could not be validated: ${reason}` }] };
  }
}

function validate(value: unknown, options: ManifestValidationOptions): ManifestValidation {
  const violations = new ViolationList();
  if (!isJsonObject(value)) {
    violations.add(ROOT_PATH, `manifest must be a mapping, not ${kindOf(value)}`);
    return { ok: false, violations: violations.items };
  }
  if (value.api_version !== 1) violations.add('api_version', 'must be the integer 1');
  if (!isPluginId(value.id)) {
    violations.add('id', `must match ${PLUGIN_ID_PATTERN.source} and not end in ".", "-" or "_"`);
  }
  if (!isSemver(value.version)) violations.add('version', 'must be a semantic version such as 1.2.3');
  for (const key of ['display_name', 'description']) {
    const text = value[key];
    if (text !== undefined && text !== null && typeof text !== 'string') violations.add(key, `must be text, not ${kindOf(text)}`);
    else if (typeof text === 'string' && hasControlCharacters(text)) violations.add(key, CONTROL_CHARACTER_PROBLEM);
  }
  checkMinVersion(value.min_toolport_version, options.toolportVersion, violations);
  const { tools, declared } = validateTools(value.agent_tools, violations, options.schemas);
  const configSchemaValue = isJsonObject(value.config_schema) ? value.config_schema : undefined;
  const declaresAgentTools = value.agent_tools !== undefined && value.agent_tools !== null;
  const runtime = validateRuntime(value.runtime, declared > 0, violations, { declaresAgentTools, configSchema: configSchemaValue });
  const capabilities = value.capabilities;
  if (capabilities !== undefined && capabilities !== null && !(isJsonObject(capabilities) && isPlainJson(capabilities))) {
    violations.add('capabilities', `must be a mapping of plain data, not ${kindOf(capabilities)}`);
  } else if (isJsonObject(capabilities)) {
    for (const key of GRANTING_CAPABILITIES) {
      const granted = capabilities[key];
      if (granted !== undefined && typeof granted !== 'boolean') violations.add(`capabilities.${key}`, `must be true or false, not ${kindOf(granted)}`);
    }
  }
  const configSchema = value.config_schema;
  if (configSchema !== undefined && configSchema !== null) {
    for (const problem of schemaProblems(configSchema, options.schemas)) violations.add('config_schema', problem);
    if (isJsonObject(configSchema)) for (const problem of secretDeclarations(configSchema).problems) violations.add('config_schema', problem);
  }
  const permissions = validatePermissions(value.permissions, isJsonObject(configSchema) ? configSchema : undefined, violations);
  if (!violations.empty) return { ok: false, violations: violations.items };

  const manifest: PluginManifest = { api_version: 1, id: value.id as string, version: value.version as string, agent_tools: tools };
  if (typeof value.display_name === 'string') manifest.display_name = value.display_name;
  if (typeof value.description === 'string') manifest.description = value.description;
  if (typeof value.min_toolport_version === 'string') manifest.min_toolport_version = value.min_toolport_version;
  if (runtime !== undefined) manifest.runtime = runtime;
  if (isJsonObject(capabilities)) manifest.capabilities = capabilities as JsonObject;
  if (isJsonObject(configSchema)) manifest.config_schema = configSchema;
  if (permissions !== undefined) manifest.permissions = permissions;
  return { ok: true, manifest };
}

function checkMinVersion(value: unknown, toolportVersion: string, violations: ViolationList): void {
  if (value === undefined || value === null) return;
  const wanted = parseSemver(value);
  if (wanted === undefined) {
    violations.add('min_toolport_version', 'must be a semantic version such as 1.2.3');
    return;
  }
  const running = parseSemver(toolportVersion);
  if (running !== undefined && compareSemver(wanted, running) > 0) {
    violations.add('min_toolport_version', `needs Toolport ${String(value)} or newer; this is ${toolportVersion}`);
  }
}

/** The valid declarations, and how many entries the list has (valid or not). */
function validateTools(value: unknown, violations: ViolationList, schemas: SchemaCompiler): { tools: AgentToolDeclaration[]; declared: number } {
  if (value === undefined || value === null) return { tools: [], declared: 0 };
  if (!Array.isArray(value)) {
    violations.add('agent_tools', `must be a list, not ${kindOf(value)}`);
    return { tools: [], declared: 1 };
  }
  const entries: unknown[] = Array.from(value);
  if (entries.length > LIMITS.agentToolsPerPlugin) {
    violations.add('agent_tools', `must have at most ${LIMITS.agentToolsPerPlugin} entries (has ${entries.length})`);
  }
  const tools: AgentToolDeclaration[] = [];
  const firstIndex = new Map<string, number>();
  entries.forEach((entry, index) => {
    const path = `agent_tools[${index}]`;
    const tool = validateAgentTool(entry, path, violations, schemas);
    if (tool !== undefined) tools.push(tool);
    const name = isJsonObject(entry) ? entry.name : undefined;
    if (typeof name !== 'string') return;
    const first = firstIndex.get(name);
    if (first === undefined) firstIndex.set(name, index);
    else violations.add(`${path}.name`, `duplicate tool name "${name}" (also agent_tools[${first}])`);
  });
  return { tools, declared: entries.length };
}
