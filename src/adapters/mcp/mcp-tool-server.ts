import { AsyncLocalStorage } from 'node:async_hooks';
import { ProtocolError, ProtocolErrorCode, Server, type CallToolResult, type ServerContext } from '@modelcontextprotocol/server';
import type { CallTool } from '../../application/agentctl/call-tool';
import type { ListTools } from '../../application/agentctl/list-tools';
import type { ToolCallResult } from '../../application/agentctl/tool-call-result';
import type { ProgressReport } from '../../application/agentctl/wait-progress';
import { receivedTraceContext } from '../../domain/trace-context';
import { mcpToolList } from './mcp-tool-list';

export interface McpToolServerDeps {
  listTools: Pick<ListTools, 'execute'>;
  callTool: CallTool;
  version: string;
}

/**
 * How long a 2026-07-28 client may reuse a `tools/list` answer. Every effective catalog change
 * is announced with `list_changed` on each open `subscriptions/listen` stream, which ends the
 * hint, so a client honouring both never lists a removed tool after the notification.
 */
export const TOOLS_LIST_TTL_MS = 60_000;

/**
 * One low-level SDK v2 `Server`: tools only, `listChanged: true`, the whole list in one page.
 * The same factory serves every era (an HTTP session, a 2026-07-28 request, a stdio
 * connection), so both eras see the same tools, results and errors. An unknown tool name is
 * JSON-RPC -32602; every other failure is an `isError` result.
 */
export function createMcpToolServer(deps: McpToolServerDeps): Server {
  const server = new Server(
    { name: 'toolport-agentctl', version: deps.version },
    {
      capabilities: { tools: { listChanged: true } },
      cacheHints: { 'tools/list': { ttlMs: TOOLS_LIST_TTL_MS, cacheScope: 'private' } },
    },
  );
  server.setRequestHandler('tools/list', async () => ({ tools: mcpToolList(await deps.listTools.execute()) }));
  server.setRequestHandler('tools/call', async (request, ctx) => {
    // W3C trace context rides in `_meta` (as MCP clients that trace send it), in either era.
    const trace = receivedTraceContext(request.params._meta);
    const onProgress = progressReport(ctx);
    const outcome = await deps.callTool.execute(
      { name: request.params.name, arguments: request.params.arguments, ...(trace ? { trace } : {}), ...(onProgress ? { onProgress } : {}) },
      callSignal(ctx),
    );
    // The SDK puts the message on the wire as is; clients add their own "MCP error -32602:" once.
    if (!outcome.found) throw new ProtocolError(ProtocolErrorCode.InvalidParams, `Unknown tool: ${outcome.name}`);
    return toCallToolResult(outcome.result);
  });
  return server;
}

/**
 * The SDK aborts a handler on `notifications/cancelled` (and, for a 2026-07-28 exchange, when
 * its transport closes); a 2025 session POST answered as JSON is not aborted when its client
 * drops the connection, so the HTTP adapter gives each request a signal of its own.
 */
function callSignal(ctx: ServerContext): AbortSignal {
  const connection = ctx.http?.req?.signal;
  return connection ? AbortSignal.any([ctx.mcpReq.signal, connection]) : ctx.mcpReq.signal;
}

/**
 * Where a call's progress goes when its request carried a `progressToken` (either era):
 * `notifications/progress` related to the call, so on HTTP it rides the call's own stream
 * (docs/approvals.md). A client gone meanwhile just misses it.
 */
function progressReport(ctx: ServerContext): ProgressReport | undefined {
  const token = ctx.mcpReq._meta?.progressToken;
  if (token === undefined) return undefined;
  // Bound to the request's async context: the steps run on timers the link's events start, and
  // a 2025-era HTTP transport tells by the context which answer stream a message belongs to.
  return AsyncLocalStorage.bind((progress: number, message: string) => {
    void ctx.mcpReq.notify({ method: 'notifications/progress', params: { progressToken: token, progress, message } }).catch(() => undefined);
  });
}

/** A failure is an `isError` result whose text starts with its code: `[PLUGIN_BUSY] …` (docs/plugin-protocol.md §9). */
function toCallToolResult(result: ToolCallResult): CallToolResult {
  if (result.kind === 'failure') return { content: [{ type: 'text', text: `[${result.code}] ${result.message}` }], isError: true };
  // The plugin's blocks reach the agent as they are; the backend checked each block's type and
  // required fields, so the SDK's own check of the result holds.
  const content = (result.content ?? [{ type: 'text', text: result.text }]) as CallToolResult['content'];
  const answer: CallToolResult = { content, isError: result.isError };
  if (result.structuredContent !== undefined) answer.structuredContent = result.structuredContent;
  return answer;
}
