import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type ServerNotification,
  type ServerRequest,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import type { CallTool } from '../../application/agentctl/call-tool';
import type { ListTools } from '../../application/agentctl/list-tools';
import type { ToolCallResult } from '../../application/agentctl/tool-call-result';

export type McpRequestExtra = RequestHandlerExtra<ServerRequest, ServerNotification>;

export interface McpToolServerDeps {
  listTools: ListTools;
  callTool: CallTool;
  version: string;
  /** The signal a call runs under; the HTTP adapter adds its own connection-close abort. */
  signalFor?(extra: McpRequestExtra): AbortSignal;
}

/**
 * One low-level MCP `Server` (one per MCP session): tools only, `listChanged: true`, the whole
 * list in one page. An unknown tool name is JSON-RPC -32602; every other failure is an
 * `isError` result.
 */
export function createMcpToolServer(deps: McpToolServerDeps): Server {
  const server = new Server({ name: 'toolport-agentctl', version: deps.version }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: (await deps.listTools.execute()) as Tool[] }));
  server.setRequestHandler(CallToolRequestSchema, async (request, extra) => {
    const signal = deps.signalFor ? deps.signalFor(extra) : extra.signal;
    const outcome = await deps.callTool.execute({ name: request.params.name, arguments: request.params.arguments }, signal);
    if (!outcome.found) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${outcome.name}`);
    return toCallToolResult(outcome.result);
  });
  return server;
}

function toCallToolResult(result: ToolCallResult): CallToolResult {
  const answer: CallToolResult = { content: [{ type: 'text', text: result.text }], isError: result.isError };
  if (result.structuredContent !== undefined) answer.structuredContent = result.structuredContent;
  return answer;
}
