import type { ErrorCode } from './errors';

/**
 * How one tool call ended, as logs, metrics and the console count it (docs/invocation.md).
 * `refused` is a call agentctl answered itself without sending it (an unknown tool, arguments
 * invalid against the held input schema), which it reports to the backend.
 */
export type CallOutcome = 'success' | 'tool_error' | 'error' | 'cancelled' | 'refused';

/** The codes of a call agentctl refuses itself: no such tool listed, or arguments the held schema rejects. */
export const REFUSAL_CODES = ['NOT_FOUND', 'INVALID_ARGUMENTS'] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export function isRefusalCode(value: unknown): value is RefusalCode {
  return typeof value === 'string' && (REFUSAL_CODES as readonly string[]).includes(value);
}

/** The outcome of a call that answered: the plugin's own error result is `tool_error`. */
export function answeredOutcome(isError: boolean): CallOutcome {
  return isError ? 'tool_error' : 'success';
}

/**
 * The outcome of a call that failed with `code`: only the caller's own cancellation is
 * `cancelled`; a lifecycle cancellation, a timeout and every other code are `error`.
 */
export function failedOutcome(code: ErrorCode): CallOutcome {
  return code === 'CANCELLED' ? 'cancelled' : 'error';
}
