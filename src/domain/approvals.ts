import { ToolportError } from './errors';
import { EVERY_WORKSPACE, patternMatches, type PatternSubject } from './scopes';

/**
 * Approval of consequential calls (docs/approvals.md): rules that hold a call until someone
 * decides, and the request an operator decides, which is bound to one call's session, tool and
 * argument hash and used once. Nothing here knows about stores, timers or links.
 */

export const APPROVAL_MODES = ['client', 'operator'] as const;
export type ApprovalMode = (typeof APPROVAL_MODES)[number];

/** The tools pattern that means every tool whose `destructive_hint` is true, never a plugin id. */
export const DESTRUCTIVE_PATTERN = 'destructive';

export interface ApprovalRule {
  /** `*` or one workspace id. */
  workspace: string;
  /** `*` or one profile name. */
  profile: string;
  /** A scope pattern (docs/catalog-and-sessions.md, "Scopes"), or `destructive`. */
  tools: string;
  mode: ApprovalMode;
}

/** What a rule reads of the calling session. */
export interface ApprovalSessionSubject {
  workspace_id: string;
  profile: string;
}

/** What a rule reads of the tool called: its names and its `destructive_hint` after the defaults. */
export type ApprovalToolSubject = PatternSubject & { destructive: boolean };

export function ruleMatches(rule: ApprovalRule, session: ApprovalSessionSubject, tool: ApprovalToolSubject): boolean {
  if (rule.workspace !== EVERY_WORKSPACE && rule.workspace !== session.workspace_id) return false;
  if (rule.profile !== EVERY_WORKSPACE && rule.profile !== session.profile) return false;
  if (rule.tools === DESTRUCTIVE_PATTERN) return tool.destructive;
  return patternMatches(rule.tools, tool);
}

/** The mode of the first rule matching the call, or null (no rule matches: no approval). */
export function approvalModeFor(rules: readonly ApprovalRule[], session: ApprovalSessionSubject, tool: ApprovalToolSubject): ApprovalMode | null {
  for (const rule of rules) {
    if (ruleMatches(rule, session, tool)) return rule.mode;
  }
  return null;
}

/** Whether some rule may hold a call of this tool in some session. */
export function mayBeHeld(rules: readonly ApprovalRule[], tool: ApprovalToolSubject): boolean {
  return rules.some((rule) => (rule.tools === DESTRUCTIVE_PATTERN ? tool.destructive : patternMatches(rule.tools, tool)));
}

/**
 * The exposed names of the tools a rule matching `session` may hold, in either mode, sorted:
 * what the session's agentctl marks in its view (docs/approvals.md, "Marked tools").
 */
export function markedTools(rules: readonly ApprovalRule[], session: ApprovalSessionSubject, tools: Iterable<ApprovalToolSubject>): string[] {
  const mine = rules.filter(
    (rule) =>
      (rule.workspace === EVERY_WORKSPACE || rule.workspace === session.workspace_id) && (rule.profile === EVERY_WORKSPACE || rule.profile === session.profile),
  );
  if (mine.length === 0) return [];
  const marked: string[] = [];
  for (const tool of tools) if (mine.some((rule) => ruleMatches(rule, session, tool))) marked.push(tool.exposed_name);
  return marked.sort();
}

/** The indexes of the rules naming `profile`: those keep it from being deleted. */
export function rulesNamingProfile(rules: readonly ApprovalRule[], profile: string): number[] {
  return rules.flatMap((rule, index) => (rule.profile === profile ? [index] : []));
}

/** An operator's pending request, as `GET /api/v1/approvals` lists it. */
export interface ApprovalRequest {
  id: string;
  session_id: string;
  task_id: string;
  workspace_id: string;
  profile: string;
  /** The exposed tool name. */
  tool: string;
  plugin_id: string;
  arguments_sha256: string;
  /** ISO 8601 UTC. */
  created_at: string;
  /** created_at + the approval timeout. */
  expires_at: string;
}

export type ApprovalDecision = 'approved' | 'denied';

/** Where a request stands: decided once, or gone without a decision. */
export type ApprovalState = 'pending' | ApprovalDecision | 'expired' | 'withdrawn';

/** A request with its state, as the store keeps it. */
export interface StoredApprovalRequest extends ApprovalRequest {
  state: ApprovalState;
  decided_by: string | null;
  reason: string | null;
  /** The replica holding the call; null on a backend alone. */
  holder: string | null;
}

/** The answer to a decision: the request plus the decision, who made it and why. */
export interface DecidedApprovalRequest extends ApprovalRequest {
  decision: ApprovalDecision;
  decided_by: string;
  reason: string | null;
}

/** The request as the API lists it: none of the store's bookkeeping. */
export function requestView(stored: StoredApprovalRequest): ApprovalRequest {
  const { id, session_id, task_id, workspace_id, profile, tool, plugin_id, arguments_sha256, created_at, expires_at } = stored;
  return { id, session_id, task_id, workspace_id, profile, tool, plugin_id, arguments_sha256, created_at, expires_at };
}

/** The most a decision's reason may hold; longer ones are cut. */
export const APPROVAL_REASON_MAX_LENGTH = 1024;

/** What an operator's decision asks for. */
export interface DecisionInput {
  decision: ApprovalDecision;
  decided_by: string;
  reason?: string | null;
}

/**
 * The request once `input` decides it, at `now` (ms): a request is decided once. A second
 * decision → ALREADY_DECIDED; one that expired (by its state or its time) or was withdrawn →
 * NOT_FOUND, as a request that never existed.
 */
export function decideRequest(stored: StoredApprovalRequest, input: DecisionInput, now: number): StoredApprovalRequest {
  if (stored.state === 'approved' || stored.state === 'denied') {
    throw new ToolportError('ALREADY_DECIDED', `approval request ${stored.id} was ${stored.state} already; a decision is used once`);
  }
  if (stored.state !== 'pending' || Date.parse(stored.expires_at) <= now) {
    throw new ToolportError('NOT_FOUND', `no approval request ${stored.id} awaits a decision (it expired or was withdrawn)`);
  }
  const reason = input.reason ? input.reason.slice(0, APPROVAL_REASON_MAX_LENGTH) : null;
  return { ...stored, state: input.decision, decided_by: input.decided_by, reason };
}

/** The answer to a decision made. */
export function decidedView(stored: StoredApprovalRequest): DecidedApprovalRequest {
  if (stored.state !== 'approved' && stored.state !== 'denied') throw new Error(`approval request ${stored.id} is ${stored.state}, not decided`);
  return { ...requestView(stored), decision: stored.state, decided_by: stored.decided_by ?? 'admin', reason: stored.reason };
}
