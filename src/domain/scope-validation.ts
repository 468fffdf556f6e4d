import { hasControlCharacters } from './control-characters';
import { ProfileInvalidError, ScopeInvalidError } from './errors';
import { isJsonObject, type JsonObject } from './json';
import { EVERY_WORKSPACE, PROFILE_NAME_PATTERN, normaliseProfile, normaliseScope, type PluginScope, type Profile } from './scopes';
import { ViolationList, kindOf } from './violation-list';
import { workspaceIdProblem } from './workspace-id';

/**
 * The bodies of `PUT /api/v1/plugins/:id/scope` and `PUT /api/v1/profiles/:name`, checked whole
 * (docs/catalog-and-sessions.md, "Scopes"): every violation is reported at once, located by a
 * path such as `workspaces[1]` or `disabled_tools["ws-1"][0]`, and a field neither body has is
 * refused, so a misspelt one never goes unnoticed.
 */

const ROOT_PATH = '(root)';
const SCOPE_FIELDS = ['workspaces', 'disabled_tools'];
const PROFILE_FIELDS = ['name', 'include', 'exclude'];
/** Longer patterns can match nothing a tool is named (exposed names are shorter). */
const PATTERN_MAX_LENGTH = 256;

/**
 * The scope `body` states, normalised, or ScopeInvalidError. A disabled tool must be one the
 * plugin declares (`declared`, its local names) or one `stored` already lists for that
 * workspace: an upgrade keeps names the new version lacks, and sending them back is no error.
 */
export function readPluginScope(body: unknown, declared: readonly string[], stored: PluginScope): PluginScope {
  const problems = new ViolationList();
  if (!isJsonObject(body)) {
    problems.add(ROOT_PATH, `the scope must be a JSON object {"workspaces", "disabled_tools"}, not ${kindOf(body)}`);
    throw new ScopeInvalidError(problems.items);
  }
  unknownFields(body, SCOPE_FIELDS, 'a scope', problems);
  const workspaces = readWorkspaces(body.workspaces, problems);
  const disabled = readDisabledTools(body.disabled_tools, new Set(declared), stored, problems);
  if (!problems.empty || workspaces === undefined || disabled === undefined) throw new ScopeInvalidError(problems.items);
  return normaliseScope({ workspaces, disabled_tools: disabled });
}

/**
 * The profile `body` states under `name`, normalised (`exclude` defaults to `[]`), or
 * ProfileInvalidError. The body may repeat the name, as `GET` answers it, but not another.
 */
export function readProfile(name: string, body: unknown): Profile {
  const problems = new ViolationList();
  if (!PROFILE_NAME_PATTERN.test(name)) problems.add('name', `must match ${PROFILE_NAME_PATTERN.source}`);
  if (!isJsonObject(body)) {
    problems.add(ROOT_PATH, `the profile must be a JSON object {"include", "exclude"}, not ${kindOf(body)}`);
    throw new ProfileInvalidError(problems.items);
  }
  unknownFields(body, PROFILE_FIELDS, 'a profile', problems);
  if (body.name !== undefined && body.name !== name) problems.add('name', `must be absent or the name in the path (${JSON.stringify(name)})`);
  const include = body.include === undefined ? missing('include', problems) : readPatterns('include', body.include, problems);
  const exclude = body.exclude === undefined ? [] : readPatterns('exclude', body.exclude, problems);
  if (!problems.empty || include === undefined || exclude === undefined) throw new ProfileInvalidError(problems.items);
  return normaliseProfile({ name, include, exclude });
}

function unknownFields(body: JsonObject, known: readonly string[], what: string, problems: ViolationList): void {
  for (const key of Object.keys(body)) {
    if (!known.includes(key)) problems.add(key, `is not a field of ${what} (${known.join(', ')})`);
  }
}

function missing(path: string, problems: ViolationList): undefined {
  problems.add(path, 'is required');
  return undefined;
}

function readWorkspaces(value: unknown, problems: ViolationList): PluginScope['workspaces'] | undefined {
  if (value === undefined) return missing('workspaces', problems);
  if (value === EVERY_WORKSPACE) return EVERY_WORKSPACE;
  if (!Array.isArray(value)) {
    problems.add('workspaces', `must be "${EVERY_WORKSPACE}" (every workspace) or a list of workspace ids ([] for none), not ${describe(value)}`);
    return undefined;
  }
  const before = problems.items.length;
  value.forEach((id: unknown, index) => {
    const problem = workspaceIdProblem(id);
    if (problem) problems.add(`workspaces[${index}]`, problem);
  });
  return problems.items.length === before ? (value as string[]) : undefined;
}

function readDisabledTools(value: unknown, declared: ReadonlySet<string>, stored: PluginScope, problems: ViolationList): Record<string, string[]> | undefined {
  if (value === undefined) return missing('disabled_tools', problems);
  if (!isJsonObject(value)) {
    problems.add('disabled_tools', `must be an object of lists of tool names by workspace id or "${EVERY_WORKSPACE}", not ${kindOf(value)}`);
    return undefined;
  }
  const before = problems.items.length;
  const disabled: Record<string, string[]> = {};
  for (const [workspace, names] of Object.entries(value)) {
    const at = `disabled_tools[${JSON.stringify(workspace)}]`;
    const problem = workspace === EVERY_WORKSPACE ? null : workspaceIdProblem(workspace);
    if (problem) problems.add(at, `must be keyed by "${EVERY_WORKSPACE}" or a workspace id, which ${problem}`);
    if (!Array.isArray(names)) {
      problems.add(at, `must be a list of the plugin's tool names, not ${kindOf(names)}`);
      continue;
    }
    const kept = new Set(stored.disabled_tools[workspace] ?? []);
    names.forEach((name: unknown, index) => {
      if (typeof name !== 'string' || name === '') problems.add(`${at}[${index}]`, `must be a tool's local name, not ${describe(name)}`);
      else if (!declared.has(name) && !kept.has(name)) problems.add(`${at}[${index}]`, `${JSON.stringify(name)} is not a tool the plugin declares`);
    });
    Object.defineProperty(disabled, workspace, { value: names, enumerable: true, configurable: true, writable: true });
  }
  return problems.items.length === before ? disabled : undefined;
}

function readPatterns(path: string, value: unknown, problems: ViolationList): string[] | undefined {
  if (!Array.isArray(value)) {
    problems.add(path, `must be a list of patterns (a tool's exposed name or plugin id, * for any run of characters), not ${kindOf(value)}`);
    return undefined;
  }
  const before = problems.items.length;
  value.forEach((pattern: unknown, index) => {
    const at = `${path}[${index}]`;
    if (typeof pattern !== 'string' || pattern === '') problems.add(at, `must be a non-empty string, not ${describe(pattern)}`);
    else if (pattern.length > PATTERN_MAX_LENGTH) problems.add(at, `must be at most ${PATTERN_MAX_LENGTH} characters`);
    else if (hasControlCharacters(pattern)) problems.add(at, 'must not contain control characters');
  });
  return problems.items.length === before ? (value as string[]) : undefined;
}

/** A value's kind for a message; an empty string is named as such. */
function describe(value: unknown): string {
  return value === '' ? 'an empty string' : kindOf(value);
}
