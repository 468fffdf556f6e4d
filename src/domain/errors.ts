/**
 * Every stable error code Toolport gives, in one place. Inbound adapters map these to their
 * protocol once (HTTP status, WebSocket error code, MCP `isError` text); the core never
 * knows a transport.
 */
export const API_ERROR_CODES = [
  'BAD_REQUEST',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'ALREADY_INSTALLED',
  'NAME_COLLISION',
  'VERSION_EXISTS',
  'CHECKSUM_MISMATCH',
  'INVALID_PACKAGE',
  'PLUGIN_START_FAILED',
  'CONFIG_INVALID',
  /** A package asks for a permission (docs/plugin-protocol.md §2, `permissions`) the operator did not grant. */
  'PERMISSION_NOT_GRANTED',
  'AGENTCTL_START_FAILED',
  /** A session whose token cannot be issued again: launched by the backend, linked now, or stopped. */
  'SESSION_NOT_REISSUABLE',
  /** A shared store (docs/operations.md §10) cannot be reached: changes are refused until it is back. */
  'STORE_UNAVAILABLE',
  /** A plugin scope that is malformed or names a tool the plugin does not declare (docs/catalog-and-sessions.md, "Scopes"). */
  'SCOPE_INVALID',
  /** A profile that is malformed. */
  'PROFILE_INVALID',
  /** A well-formed profile name that names no profile. */
  'UNKNOWN_PROFILE',
  /** A profile a session that is not stopped (or an approval rule) still uses: it cannot be deleted. */
  'PROFILE_IN_USE',
  /** The `default` profile: it can be changed, never deleted. */
  'PROFILE_PROTECTED',
  /** Approval rules (docs/approvals.md) that are malformed or name a profile that does not exist. */
  'RULES_INVALID',
  /** An approval request that was approved or denied already: a decision is used once. */
  'ALREADY_DECIDED',
  'INTERNAL',
] as const;

/** Why a tool call was refused or failed (docs/plugin-protocol.md §9): the agent is shown the code with the reason. */
export const INVOCATION_ERROR_CODES = [
  'INVALID_ARGUMENTS',
  'SESSION_NOT_LIVE',
  'PLUGIN_NOT_ACTIVE',
  'TOOL_NOT_DECLARED',
  'SURFACE_NOT_ALLOWED',
  /** The tool is not among the session's effective tools (its workspace's scope or its profile; docs/catalog-and-sessions.md). */
  'TOOL_NOT_ENABLED',
  'PLUGIN_BUSY',
  'TOOL_TIMEOUT',
  'PLUGIN_CRASHED',
  'PLUGIN_ERROR',
  'RESULT_TOO_LARGE',
  'BAD_RESULT',
  'CANCELLED_BY_LIFECYCLE',
  'CANCELLED',
  'BACKEND_UNAVAILABLE',
  /** An approval rule held the call and it was denied (docs/approvals.md). */
  'APPROVAL_DENIED',
  /** An approval rule held the call and no decision came within the approval timeout. */
  'APPROVAL_TIMEOUT',
] as const;

export type ApiErrorCode = (typeof API_ERROR_CODES)[number];
export type InvocationErrorCode = (typeof INVOCATION_ERROR_CODES)[number];
export type ErrorCode = ApiErrorCode | InvocationErrorCode;

/** One rule a manifest or package breaks, located by a path such as `agent_tools[2].surfaces[0]`. */
export interface Violation {
  path: string;
  message: string;
}

/** An expected failure with a stable code; `details` is null or JSON-serialisable. */
export class ToolportError extends Error {
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly details: unknown = null,
  ) {
    super(message);
    this.name = 'ToolportError';
  }
}

/** A package or manifest that breaks the rules of docs/plugin-protocol.md §2; `details` lists every violation. */
export class InvalidPackageError extends ToolportError {
  /** `warnings`: what the manifest had that is not refused (unknown fields), for `plugin validate`. */
  constructor(
    readonly violations: Violation[],
    readonly warnings: Violation[] = [],
  ) {
    super('INVALID_PACKAGE', describeViolations(violations), violations);
    this.name = 'InvalidPackageError';
  }
}

/**
 * A plugin configuration that does not satisfy its `config_schema` (docs/lifecycle.md, §9);
 * `details` lists every violation, each located by the configuration key.
 */
export class ConfigInvalidError extends ToolportError {
  constructor(
    readonly violations: Violation[],
    lead = 'the configuration does not satisfy config_schema',
  ) {
    super('CONFIG_INVALID', `${lead}: ${listViolations(violations)}`, violations);
    this.name = 'ConfigInvalidError';
  }
}

/** A plugin scope (docs/catalog-and-sessions.md, "Scopes") that breaks a rule; `details` lists every violation. */
export class ScopeInvalidError extends ToolportError {
  constructor(readonly violations: Violation[]) {
    super('SCOPE_INVALID', `the scope is not valid: ${listViolations(violations)}`, violations);
    this.name = 'ScopeInvalidError';
  }
}

/** A profile that breaks a rule; `details` lists every violation. */
export class ProfileInvalidError extends ToolportError {
  constructor(readonly violations: Violation[]) {
    super('PROFILE_INVALID', `the profile is not valid: ${listViolations(violations)}`, violations);
    this.name = 'ProfileInvalidError';
  }
}

/** Approval rules that break a rule (docs/approvals.md); `details` lists every violation. */
export class RulesInvalidError extends ToolportError {
  constructor(readonly violations: Violation[]) {
    super('RULES_INVALID', `the approval rules are not valid: ${listViolations(violations)}`, violations);
    this.name = 'RulesInvalidError';
  }
}

/**
 * Why a Host API call (docs/plugin-protocol.md §13) fails: the caller's token works for no running
 * process; its manifest does not grant the capability the call needs; a key, value or page
 * request breaks the rules; the plugin holds as many keys as it may; it has no record (being
 * installed or uninstalled); the host is stopping; a stored secret cannot be decrypted; the
 * request's scope is not one the host knows; it names a call that is not in flight to the
 * process whose token it carries; it asks for a workspace or task scope without naming a call.
 */
export const HOST_ERROR_CODES = [
  'HOST_TOKEN_INVALID',
  'CAPABILITY_NOT_GRANTED',
  'ENTRY_INVALID',
  'KEY_LIMIT_REACHED',
  'NO_PLUGIN_RECORD',
  'HOST_STOPPING',
  'SECRET_UNREADABLE',
  'SCOPE_UNKNOWN',
  'INVOCATION_NOT_IN_FLIGHT',
  'INVOCATION_REQUIRED',
] as const;
export type HostErrorCode = (typeof HOST_ERROR_CODES)[number];

/** A refused or failed Host API call; the message never holds a key or a value. */
export class HostCallError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HostCallError';
  }
}

/** A plugin process that did not come up; carries its exit code and last stderr lines. */
export class PluginStartError extends ToolportError {
  constructor(
    message: string,
    readonly exitCode: number | null,
    readonly stderr: string[],
  ) {
    super('PLUGIN_START_FAILED', message, { exit_code: exitCode, stderr });
    this.name = 'PluginStartError';
  }
}

/**
 * A refused or failed tool call. `code` is the stable code the agent is shown with
 * `message`, which never contains arguments or results. Transports carry the code as data
 * and map it to their own codes.
 */
export class InvocationError extends ToolportError {
  /** True when the plugin named by the call does not exist at all (not merely inactive). */
  readonly missing: boolean;

  constructor(
    override readonly code: InvocationErrorCode,
    message: string,
    options: { missing?: boolean } = {},
  ) {
    super(code, message);
    this.name = 'InvocationError';
    this.missing = options.missing ?? false;
  }
}

function describeViolations(violations: Violation[]): string {
  return `invalid package: ${listViolations(violations)}`;
}

/** `a: message; b: message`, at most five, then how many more. */
export function listViolations(violations: Violation[]): string {
  const shown = violations.slice(0, 5).map((v) => `${v.path}: ${v.message}`);
  const more = violations.length > 5 ? ` (and ${violations.length - 5} more)` : '';
  return `${shown.join('; ')}${more}`;
}
