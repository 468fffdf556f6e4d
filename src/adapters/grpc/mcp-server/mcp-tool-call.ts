import type { PluginCall, PluginCallResult } from '../../../application/ports/plugin-runtime';
import { InvocationError } from '../../../domain/errors';
import { isJsonObject } from '../../../domain/json';
import { McpRequestError, type McpStdioClient } from './mcp-stdio-client';

/**
 * One `tools/call` (docs/plugin-protocol.md, MCP servers, Calls): the server's original name,
 * the arguments, and `_meta` with the call's identity (`toolport/*`) and, when tracing, its
 * `traceparent`. The deadline and the caller's signal give the request up with
 * `notifications/cancelled`. The result is passed on as the server gave it: `content` verbatim
 * as contentJson, its text blocks joined as `text`, `structuredContent`, `isError`.
 * `track` registers the call with its supervisor, which runs the callback if the process goes first.
 */
export async function mcpToolCall(
  pluginId: string,
  client: McpStdioClient,
  call: PluginCall,
  track: (onProcessGone: () => void) => () => void,
): Promise<PluginCallResult> {
  const tool = `${pluginId}/${call.localName}`;
  let processGone = false;
  const untrack = track(() => {
    processGone = true;
  });
  const meta: Record<string, string> = {
    'toolport/invocation_id': call.invocationId,
    'toolport/task_id': call.context.task_id,
    'toolport/session_id': call.context.session_id,
    'toolport/workspace_id': call.context.workspace_id,
    'toolport/surface': call.context.surface,
    'toolport/profile': call.context.profile,
  };
  if (call.trace) meta.traceparent = call.trace.traceparent;
  if (call.trace?.tracestate) meta.tracestate = call.trace.tracestate;
  const params = { name: call.serverName ?? call.localName, arguments: JSON.parse(call.argumentsJson) as unknown, _meta: meta };
  let answer: unknown;
  try {
    answer = await client.request('tools/call', params, { timeoutMs: call.timeoutMs, signal: call.signal });
  } catch (error) {
    if (!(error instanceof McpRequestError)) throw error;
    const failure = error.failure;
    switch (failure.kind) {
      case 'cancelled':
        throw new InvocationError('CANCELLED', `call to ${tool} was cancelled`);
      case 'timeout':
        throw new InvocationError('TOOL_TIMEOUT', `${tool} did not answer within ${call.timeoutMs} ms`);
      case 'too_large':
        throw new InvocationError('RESULT_TOO_LARGE', `${tool} returned a result over the 1 MiB limit`);
      case 'closed':
        throw new InvocationError('PLUGIN_CRASHED', `plugin ${pluginId} ${processGone ? 'exited' : 'closed its connection'} during the call to ${tool}`);
      case 'error':
        throw new InvocationError('PLUGIN_ERROR', `${tool} answered JSON-RPC error ${failure.code}: ${failure.message}`);
    }
  } finally {
    untrack();
  }
  return resultOf(answer, tool);
}

function resultOf(answer: unknown, tool: string): PluginCallResult {
  if (!isJsonObject(answer)) throw new InvocationError('BAD_RESULT', `${tool} answered a result that is not a JSON object`);
  const content = answer.content ?? [];
  if (!Array.isArray(content)) throw new InvocationError('BAD_RESULT', `${tool} answered a content that is not a list`);
  const structured = answer.structuredContent;
  if (structured !== undefined && structured !== null && !isJsonObject(structured)) {
    throw new InvocationError('BAD_RESULT', `${tool} answered structuredContent that is not a JSON object`);
  }
  const text = content
    .filter((block): block is { type: 'text'; text: string } => isJsonObject(block) && block.type === 'text' && typeof block.text === 'string')
    .map((block) => block.text)
    .join('\n');
  return {
    text,
    structuredContentJson: isJsonObject(structured) ? JSON.stringify(structured) : '',
    isError: answer.isError === true,
    contentJson: JSON.stringify(content),
  };
}
