import { readApprovalRules } from '../../src/domain/approval-rules-validation';
import { approvalElicitation, argumentsSha256, canonicalArguments, cutUtf8 } from '../../src/domain/approval-binding';
import {
  approvalModeFor,
  decideRequest,
  decidedView,
  markedTools,
  mayBeHeld,
  rulesNamingProfile,
  type ApprovalRule,
  type StoredApprovalRequest,
} from '../../src/domain/approvals';
import { RulesInvalidError, ToolportError, type Violation } from '../../src/domain/errors';
import { sha256Hex } from '../../src/domain/tokens';

const deleteRepo = { exposed_name: 'toolport_git_delete_repo', plugin_id: 'git', destructive: true };
const listRepos = { exposed_name: 'toolport_git_list_repos', plugin_id: 'git', destructive: false };
const prod = { workspace_id: 'prod', profile: 'default' };
const dev = { workspace_id: 'dev', profile: 'ops' };

const rule = (tools: string, mode: ApprovalRule['mode'], workspace = '*', profile = '*'): ApprovalRule => ({ workspace, profile, tools, mode });

describe('approval rules', () => {
  const example = [rule('destructive', 'operator', 'prod'), rule('*', 'client')];

  it('lets the first matching rule decide, and no rule means no approval', () => {
    expect(approvalModeFor(example, prod, deleteRepo)).toBe('operator');
    expect(approvalModeFor(example, prod, listRepos)).toBe('client');
    expect(approvalModeFor(example, dev, deleteRepo)).toBe('client');
    expect(approvalModeFor([rule('*', 'client'), rule('destructive', 'operator')], prod, deleteRepo)).toBe('client');
    expect(approvalModeFor([], prod, deleteRepo)).toBeNull();
  });

  it('matches the workspace and the profile exactly or with *', () => {
    expect(approvalModeFor([rule('*', 'operator', 'dev')], prod, listRepos)).toBeNull();
    expect(approvalModeFor([rule('*', 'operator', '*', 'ops')], prod, listRepos)).toBeNull();
    expect(approvalModeFor([rule('*', 'operator', 'dev', 'ops')], dev, listRepos)).toBe('operator');
  });

  it('reads tools as a scope pattern, and `destructive` as the hint, never as a plugin id', () => {
    expect(approvalModeFor([rule('git', 'operator')], prod, listRepos)).toBe('operator');
    expect(approvalModeFor([rule('toolport_git_delete_*', 'operator')], prod, deleteRepo)).toBe('operator');
    expect(approvalModeFor([rule('toolport_git_delete_*', 'operator')], prod, listRepos)).toBeNull();
    const pluginCalledDestructive = { exposed_name: 'toolport_destructive_read', plugin_id: 'destructive', destructive: false };
    expect(approvalModeFor([rule('destructive', 'operator')], prod, pluginCalledDestructive)).toBeNull();
    expect(approvalModeFor([rule('destructive', 'operator')], prod, deleteRepo)).toBe('operator');
  });

  it('marks the tools some rule may hold, and names the rules using a profile', () => {
    expect(mayBeHeld(example.slice(0, 1), deleteRepo)).toBe(true);
    expect(mayBeHeld(example.slice(0, 1), listRepos)).toBe(false);
    expect(markedTools(example, prod, [listRepos, deleteRepo])).toEqual(['toolport_git_delete_repo', 'toolport_git_list_repos']);
    expect(markedTools(example.slice(0, 1), prod, [listRepos, deleteRepo])).toEqual(['toolport_git_delete_repo']);
    expect(markedTools(example.slice(0, 1), dev, [listRepos, deleteRepo])).toEqual([]);
    expect(markedTools([rule('git', 'operator', '*', 'ops')], dev, [listRepos, deleteRepo])).toEqual(['toolport_git_delete_repo', 'toolport_git_list_repos']);
    expect(markedTools([rule('git', 'operator', '*', 'ops')], prod, [listRepos])).toEqual([]);
    expect(rulesNamingProfile([rule('*', 'client', '*', 'ops'), rule('*', 'client'), rule('x', 'operator', '*', 'ops')], 'ops')).toEqual([0, 2]);
  });
});

function violations(body: unknown, profiles = new Set(['default', 'ops'])): Violation[] {
  try {
    readApprovalRules(body, profiles);
  } catch (error) {
    expect(error).toBeInstanceOf(RulesInvalidError);
    expect((error as RulesInvalidError).code).toBe('RULES_INVALID');
    return (error as RulesInvalidError).violations;
  }
  throw new Error('the rules were accepted');
}

describe('an approval rules body', () => {
  it('reads a list of rules in order', () => {
    const body = [rule('destructive', 'operator', 'prod', 'ops'), rule('*', 'client')];
    expect(readApprovalRules(body, new Set(['default', 'ops']))).toEqual(body);
    expect(readApprovalRules([], new Set())).toEqual([]);
  });

  it('refuses what is not a list', () => {
    expect(violations({ rules: [] })).toEqual([{ path: '(root)', message: expect.stringContaining('a JSON list') }]);
  });

  it('reports every problem with its path: missing and unknown fields, bad values, an unknown profile', () => {
    const found = violations([
      { workspace: '*', profile: '*', tools: '*' },
      { workspace: '*', profile: 'nobody', tools: '', mode: 'human', extra: 1 },
      'rule',
      { workspace: ' ', profile: 'Bad Name', tools: 'x', mode: 'client' },
    ]);
    expect(found.map((v) => v.path)).toEqual(['[0].mode', '[1].extra', '[1].profile', '[1].tools', '[1].mode', '[2]', '[3].workspace', '[3].profile']);
    expect(found.find((v) => v.path === '[1].profile')?.message).toContain('names no profile');
  });
});

describe('the argument binding', () => {
  it('hashes the canonical JSON of the arguments: key order does not matter, missing arguments are {}', () => {
    expect(canonicalArguments({ b: 1, a: { d: [1, 'x'], c: null } })).toBe('{"a":{"c":null,"d":[1,"x"]},"b":1}');
    expect(argumentsSha256({ b: 1, a: 2 })).toBe(argumentsSha256({ a: 2, b: 1 }));
    expect(argumentsSha256(undefined)).toBe(sha256Hex('{}'));
    expect(argumentsSha256({ a: 1 })).not.toBe(argumentsSha256({ a: 2 }));
    expect(argumentsSha256({ a: 1 })).toMatch(/^[0-9a-f]{64}$/);
  });
});

describe('a decision', () => {
  const now = Date.parse('2026-01-01T00:00:00.000Z');
  const pending: StoredApprovalRequest = {
    id: 'r1',
    session_id: 's1',
    task_id: 't1',
    workspace_id: 'prod',
    profile: 'default',
    tool: 'toolport_git_delete_repo',
    plugin_id: 'git',
    arguments_sha256: argumentsSha256({}),
    created_at: new Date(now - 1000).toISOString(),
    expires_at: new Date(now + 1000).toISOString(),
    state: 'pending',
    decided_by: null,
    reason: null,
    holder: null,
  };

  it('decides a pending request once, with who and why', () => {
    const decided = decideRequest(pending, { decision: 'denied', decided_by: 'admin', reason: 'not today' }, now);
    expect(decidedView(decided)).toEqual({ ...decidedView({ ...pending, state: 'denied', decided_by: 'admin', reason: 'not today' }) });
    expect(decidedView(decided)).toMatchObject({ id: 'r1', decision: 'denied', decided_by: 'admin', reason: 'not today' });
    expect(decidedView(decided)).not.toHaveProperty('state');
    expect(() => decideRequest(decided, { decision: 'approved', decided_by: 'admin' }, now)).toThrow(expect.objectContaining({ code: 'ALREADY_DECIDED' }));
  });

  it('finds no request that expired or was withdrawn', () => {
    const code = (request: StoredApprovalRequest, at = now): string => {
      try {
        decideRequest(request, { decision: 'approved', decided_by: 'admin' }, at);
      } catch (error) {
        return (error as ToolportError).code;
      }
      return 'decided';
    };
    expect(code({ ...pending, state: 'expired' })).toBe('NOT_FOUND');
    expect(code({ ...pending, state: 'withdrawn' })).toBe('NOT_FOUND');
    expect(code(pending, now + 1000)).toBe('NOT_FOUND');
    expect(code(pending, now + 999)).toBe('decided');
  });
});

describe('the elicitation that asks a client', () => {
  it('names the tool and the plugin and ends with the canonical JSON of the arguments, with the exact schema', () => {
    expect(approvalElicitation('kandev_x_drop', 'x.db', { z: 1, a: { c: [true, null], b: 'é' } })).toEqual({
      mode: 'form',
      message: 'Allow kandev_x_drop (plugin x.db) with these arguments? {"a":{"b":"é","c":[true,null]},"z":1}',
      requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
    });
    expect(approvalElicitation('t', 'p', undefined).message).toBe('Allow t (plugin p) with these arguments? {}');
  });

  it('cuts the arguments at 4096 UTF-8 bytes at a character boundary, then marks the cut', () => {
    // 4093 bytes of JSON around the value, then a 4-byte character that does not fit whole.
    const args = { k: `${'a'.repeat(4086)}😀😀` };
    const shown = approvalElicitation('t', 'p', args).message.slice('Allow t (plugin p) with these arguments? '.length);
    expect(shown.endsWith('…')).toBe(true);
    const kept = shown.slice(0, -1);
    expect(Buffer.byteLength(kept, 'utf8')).toBeLessThanOrEqual(4096);
    expect(kept).toBe(`{"k":"${'a'.repeat(4086)}😀`);
    expect(cutUtf8('short', 4096)).toBe('short');
    expect(cutUtf8('ééé', 5)).toBe('éé…');
  });
});
