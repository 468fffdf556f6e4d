import type { ErrorCode } from './errors';

/** How one tool call ended, as logs, metrics and the console count it (docs/invocation.md). */
export type CallOutcome = 'success' | 'tool_error' | 'error' | 'cancelled';

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
