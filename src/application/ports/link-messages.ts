import type { RefusalCode } from '../../domain/call-outcome';
import type { JsonObject } from '../../domain/json';
import type { TraceContext } from './tracer';

/**
 * What agentctl and the backend say to each other over their link (docs/agentctl.md §7), in the
 * application's own terms. The WebSocket adapter owns the frames and the wire names.
 */

/**
 * `agentctl.hello`: where the agentctl's control API listens, if it serves one. It is shown
 * to nobody and never dialled: the backend pushes catalog changes over the link itself.
 */
export interface AgentctlHello {
  controlUrl?: string;
}

/** One call of one plugin tool, arguments already validated by agentctl. */
export interface PluginToolRequest {
  pluginId: string;
  localName: string;
  arguments: JsonObject;
  /** The caller's W3C trace context (`traceparent`, `tracestate`), so the backend's spans join its trace. */
  trace?: TraceContext;
}

/** The answer to a plugin tool call; a plugin's own error result has `isError: true`. */
export interface PluginToolAnswer {
  invocationId: string;
  text: string;
  structuredContent: JsonObject | null;
  isError: boolean;
  /**
   * Every MCP content block the agent gets, verbatim (a gRPC plugin's `text` block first);
   * absent: one text block of `text` (docs/invocation.md).
   */
  content?: JsonObject[];
}

/**
 * A `tools/call` agentctl refused itself and never sent (`mcp.report_refused_call`, fire and
 * forget): the name the agent asked for, the code it was answered with, and for a listed tool
 * its plugin and local name. Never the arguments.
 */
export interface RefusedCallReport {
  /** The tool name as the agent sent it (at most 256 characters are kept). */
  name: string;
  code: RefusalCode;
  /** Set when the name is a listed tool (arguments refused). */
  tool?: { pluginId: string; localName: string };
}

/**
 * `mcp.ask_client`: the backend holds a call under a `client` approval rule and asks the agentctl
 * to ask its MCP client (docs/approvals.md, client mode). The agentctl already has the arguments.
 */
export interface ClientApprovalQuestion {
  /** The exposed tool name. */
  tool: string;
  pluginId: string;
  /** The approval timeout: the most the client may take to answer. */
  timeoutMs: number;
}

/**
 * What the agentctl's client decided: `unsupported` when it cannot be asked (no `elicitation`
 * capability, or 2025-03-26), and an operator decides instead.
 */
export type ClientApprovalAnswer = 'approved' | 'denied' | 'timeout' | 'unsupported';

export const CLIENT_APPROVAL_ANSWERS: readonly ClientApprovalAnswer[] = ['approved', 'denied', 'timeout', 'unsupported'];

/**
 * Asks the client of the agentctl that sent one call; resolves its answer, never rejects (a
 * failure to reach it is `unsupported` on the backend's side, `denied` on the agentctl's).
 */
export type AskClient = (question: ClientApprovalQuestion) => Promise<ClientApprovalAnswer>;
