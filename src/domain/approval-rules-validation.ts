import { APPROVAL_MODES, DESTRUCTIVE_PATTERN, type ApprovalMode, type ApprovalRule } from './approvals';
import { hasControlCharacters } from './control-characters';
import { RulesInvalidError } from './errors';
import { isJsonObject } from './json';
import { EVERY_WORKSPACE, PROFILE_NAME_PATTERN } from './scopes';
import { ViolationList, kindOf } from './violation-list';
import { workspaceIdProblem } from './workspace-id';

/**
 * The body of `PUT /api/v1/approval-rules` (docs/approvals.md), checked whole: a list of rules,
 * each with exactly `workspace`, `profile`, `tools` and `mode`, every violation reported at once
 * and located by a path such as `[2].mode`. A rule naming a profile that does not exist is
 * refused too: it could never match, and the operator meant something else.
 */

const RULE_FIELDS = ['workspace', 'profile', 'tools', 'mode'];
/** As for profile patterns: longer ones can match nothing a tool is named. */
const PATTERN_MAX_LENGTH = 256;
/** Rules are read in order on every held-capable call; a list this long is a mistake. */
export const APPROVAL_RULES_MAX = 1000;

/** The rules `body` states, in order, or RulesInvalidError. `profiles`: the names that exist. */
export function readApprovalRules(body: unknown, profiles: ReadonlySet<string>): ApprovalRule[] {
  const problems = new ViolationList();
  if (!Array.isArray(body)) {
    problems.add('(root)', `the approval rules must be a JSON list of {"workspace", "profile", "tools", "mode"}, not ${kindOf(body)}`);
    throw new RulesInvalidError(problems.items);
  }
  if (body.length > APPROVAL_RULES_MAX) problems.add('(root)', `must hold at most ${APPROVAL_RULES_MAX} rules`);
  const rules = body.map((rule: unknown, index) => readRule(rule, `[${index}]`, profiles, problems));
  if (!problems.empty) throw new RulesInvalidError(problems.items);
  return rules as ApprovalRule[];
}

function readRule(value: unknown, at: string, profiles: ReadonlySet<string>, problems: ViolationList): ApprovalRule | undefined {
  if (!isJsonObject(value)) {
    problems.add(at, `must be a rule {"workspace", "profile", "tools", "mode"}, not ${kindOf(value)}`);
    return undefined;
  }
  for (const key of Object.keys(value)) {
    if (!RULE_FIELDS.includes(key)) problems.add(`${at}.${key}`, `is not a field of an approval rule (${RULE_FIELDS.join(', ')})`);
  }
  for (const key of RULE_FIELDS) {
    if (value[key] === undefined) problems.add(`${at}.${key}`, 'is required');
  }
  const { workspace, profile, tools, mode } = value;
  if (workspace !== undefined && workspace !== EVERY_WORKSPACE) {
    const problem = workspaceIdProblem(workspace);
    if (problem) problems.add(`${at}.workspace`, `must be "${EVERY_WORKSPACE}" or a workspace id, which ${problem}`);
  }
  if (profile !== undefined && profile !== EVERY_WORKSPACE) {
    if (typeof profile !== 'string' || !PROFILE_NAME_PATTERN.test(profile)) {
      problems.add(`${at}.profile`, `must be "${EVERY_WORKSPACE}" or a profile name matching ${PROFILE_NAME_PATTERN.source}`);
    } else if (!profiles.has(profile)) problems.add(`${at}.profile`, `names no profile: ${JSON.stringify(profile)} does not exist`);
  }
  if (tools !== undefined) {
    if (typeof tools !== 'string' || tools === '') {
      problems.add(`${at}.tools`, `must be a pattern (an exposed name or plugin id, * for any run of characters, or "${DESTRUCTIVE_PATTERN}")`);
    } else if (tools.length > PATTERN_MAX_LENGTH) problems.add(`${at}.tools`, `must be at most ${PATTERN_MAX_LENGTH} characters`);
    else if (hasControlCharacters(tools)) problems.add(`${at}.tools`, 'must not contain control characters');
  }
  if (mode !== undefined && !(typeof mode === 'string' && (APPROVAL_MODES as readonly string[]).includes(mode))) {
    problems.add(`${at}.mode`, `must be one of ${APPROVAL_MODES.map((m) => JSON.stringify(m)).join(', ')}`);
  }
  return { workspace, profile, tools, mode } as { workspace: string; profile: string; tools: string; mode: ApprovalMode };
}
