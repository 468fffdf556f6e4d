import { Metadata } from '@grpc/grpc-js';
import type { HostGrant } from '../../application/ports/host-access';
import type { PluginCall, PluginCallResult } from '../../application/ports/plugin-runtime';
import { parseContentBlocks, textBlock } from '../../domain/content-blocks';
import { InvocationError } from '../../domain/errors';
import type { InvokeAgentToolResponse } from './generated/toolport/plugin/v1/plugin';
import { invocationFailure } from './invocation-failure';
import type { PluginConnection } from './plugin-connection';

const INVOCATION_ID_METADATA = 'toolport-invocation-id';

/**
 * Makes exactly one unary `InvokeAgentTool` call (the channel has retries off and the call does
 * not wait for readiness), with the deadline, the invocation id and the W3C trace context as
 * metadata and the caller's
 * signal mapped to `call.cancel()`. `track` registers the call with its supervisor, which runs
 * the given callback if the process goes away first.
 */
export function invokeAgentToolCall(
  pluginId: string,
  connection: PluginConnection,
  call: PluginCall,
  track: (onProcessGone: () => void) => () => void,
  grant?: Pick<HostGrant, 'admit'>,
): Promise<PluginCallResult> {
  return new Promise((resolve, reject) => {
    if (call.signal.aborted) {
      reject(new InvocationError('CANCELLED', `call to ${pluginId}/${call.localName} was cancelled`));
      return;
    }
    let processGone = false;
    const metadata = new Metadata();
    metadata.set(INVOCATION_ID_METADATA, call.invocationId);
    if (call.trace) {
      metadata.set('traceparent', call.trace.traceparent);
      if (call.trace.tracestate) metadata.set('tracestate', call.trace.tracestate);
    }
    const request = {
      invocationId: call.invocationId,
      name: call.localName,
      argumentsJson: call.argumentsJson,
      context: {
        taskId: call.context.task_id,
        sessionId: call.context.session_id,
        workspaceId: call.context.workspace_id,
        surface: call.context.surface,
        profile: call.context.profile,
      },
    };
    const deadline = Date.now() + call.timeoutMs;
    const options = { deadline };
    // The process's Host requests may name this call from now until it is answered, cancelled or timed out.
    const { context } = call;
    const dismiss =
      grant?.admit({
        invocationId: call.invocationId,
        workspaceId: context.workspace_id,
        taskId: context.task_id,
        sessionId: context.session_id,
        profile: context.profile,
      }) ?? (() => undefined);
    const pending = connection.plugin.invokeAgentTool(request, metadata, options, (error, response) => {
      dismiss();
      call.signal.removeEventListener('abort', cancel);
      untrack();
      if (error) {
        const context = { pluginId, localName: call.localName, timeoutMs: call.timeoutMs, processGone, deadlinePassed: Date.now() >= deadline };
        reject(invocationFailure(error, { ...context, aborted: call.signal.aborted }));
        return;
      }
      const result = callResult(`${pluginId}/${call.localName}`, response);
      if (result instanceof InvocationError) reject(result);
      else resolve(result);
    });
    const cancel = (): void => {
      dismiss();
      pending.cancel();
    };
    call.signal.addEventListener('abort', cancel, { once: true });
    const untrack = track(() => {
      processGone = true;
      pending.cancel();
    });
  });
}

/**
 * The plugin's answer as the host passes it on: with `content_json` (revision 3), every block
 * the agent gets is the `text` block followed by those blocks, verbatim (docs/plugin-protocol.md,
 * content blocks). Blocks that are not a list of well-formed MCP content blocks, or blocks
 * beside a blank `text`, are BAD_RESULT: an MCP client would refuse the whole result over one.
 */
function callResult(tool: string, response: InvokeAgentToolResponse): PluginCallResult | InvocationError {
  const result = { text: response.text, structuredContentJson: response.structuredContentJson, isError: response.isError };
  if (response.contentJson === '') return result;
  const parsed = parseContentBlocks(response.contentJson);
  if (!parsed.ok) return new InvocationError('BAD_RESULT', `${tool} answered content_json the agent cannot read: ${parsed.problem}`);
  if (response.text.trim() === '') return new InvocationError('BAD_RESULT', `${tool} answered content blocks without text`);
  if (parsed.blocks.length === 0) return result;
  return { ...result, contentJson: JSON.stringify([textBlock(response.text), ...parsed.blocks]) };
}
