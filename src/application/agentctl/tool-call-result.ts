import type { JsonObject } from '../../domain/json';

/** What an agent gets back from a tool call (mapped to an MCP `CallToolResult` by the adapter). */
export interface ToolCallResult {
  text: string;
  structuredContent?: JsonObject;
  isError: boolean;
}

/** A call's outcome: `found: false` for a name no listed tool has (MCP answers -32602). */
export type ToolCallOutcome = { found: false; name: string } | { found: true; result: ToolCallResult };

export function errorResult(agentText: string): ToolCallResult {
  return { text: agentText, isError: true };
}
