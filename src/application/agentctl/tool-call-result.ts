import type { InvocationErrorCode } from '../../domain/errors';
import type { JsonObject } from '../../domain/json';

/** The tool answered: its result, or its own error result (`isError`). */
export interface ToolAnswer {
  kind: 'answer';
  text: string;
  structuredContent?: JsonObject;
  isError: boolean;
  /** Every MCP content block the agent gets, verbatim; absent: one text block of `text`. */
  content?: JsonObject[];
}

/** The call failed: its stable code and why (never an argument or a result); the agent is shown both. */
export interface ToolFailure {
  kind: 'failure';
  code: InvocationErrorCode;
  message: string;
}

/** What an agent gets back from a tool call, in the core's terms (the MCP adapter renders it). */
export type ToolCallResult = ToolAnswer | ToolFailure;

/** A call's outcome: `found: false` for a name no listed tool has. */
export type ToolCallOutcome = { found: false; name: string } | { found: true; result: ToolCallResult };

export function toolFailure(code: InvocationErrorCode, message: string): ToolFailure {
  return { kind: 'failure', code, message };
}
