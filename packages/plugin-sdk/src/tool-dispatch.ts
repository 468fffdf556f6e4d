import { status } from '@grpc/grpc-js';
import type { sendUnaryData, ServerUnaryCall } from '@grpc/grpc-js';
import type { InvokeAgentToolRequest, InvokeAgentToolResponse } from './generated/toolport/plugin/v1/plugin';
import { traceHandler } from './handler-trace';
import { errorResponse, toResponse } from './tool-response';
import type { CallHost } from './host-types';
import type { PluginLogger, ToolContext, ToolHandler } from './types';

type Call = ServerUnaryCall<InvokeAgentToolRequest, InvokeAgentToolResponse>;
type Reply = sendUnaryData<InvokeAgentToolResponse>;

/**
 * The `InvokeAgentTool` handler: finds the tool (UNIMPLEMENTED when there is none), runs it with
 * an AbortSignal that fires when the host cancels the call, and turns a thrown error into an
 * `is_error` result carrying the message only (a stack could leak paths or data to the agent).
 * `inFlight` holds the controllers of running calls so shutdown can abort them; `hostFor` gives
 * each call its host, named by the call's invocation id.
 */
export function toolDispatcher(
  tools: Record<string, ToolHandler>,
  log: PluginLogger,
  inFlight: Set<AbortController>,
  hostFor: (invocationId: string) => CallHost,
): (call: Call, reply: Reply) => void {
  return (call, reply) => {
    const { name } = call.request;
    const handler = Object.prototype.hasOwnProperty.call(tools, name) ? tools[name] : undefined;
    if (!handler) {
      reply({ code: status.UNIMPLEMENTED, details: `this plugin has no tool named ${JSON.stringify(name)}` });
      return;
    }
    const args = parseArguments(call.request.argumentsJson);
    if (!args) {
      reply({ code: status.INVALID_ARGUMENT, details: 'arguments_json is not a JSON object' });
      return;
    }
    const controller = new AbortController();
    call.on('cancelled', () => controller.abort(new Error('the call was cancelled by the host')));
    inFlight.add(controller);
    const context = toolContext(call, log, hostFor);
    const started = Date.now();
    void traceHandler(call.metadata, name, context.invocationId, controller.signal, () => runHandler(handler, args, context, controller.signal, name)).then(
      (response) => {
        inFlight.delete(controller);
        const outcome = controller.signal.aborted ? 'cancelled' : response.isError ? 'tool_error' : 'success';
        log.debug('tool call finished', { invocation_id: context.invocationId, tool: name, outcome, duration_ms: Date.now() - started });
        reply(null, response);
      },
    );
  };
}

async function runHandler(
  handler: ToolHandler,
  args: Record<string, unknown>,
  context: ToolContext,
  signal: AbortSignal,
  tool: string,
): Promise<InvokeAgentToolResponse> {
  try {
    const response = toResponse(await handler(args, context, signal));
    if (!('problem' in response)) return response;
    context.log.error('tool result refused', { invocation_id: context.invocationId, tool, error: response.problem });
    return errorResponse(response.problem);
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    // The author needs the stack; the agent gets the message only. The record goes to this
    // plugin's stderr, which the host keeps as this plugin's log.
    context.log.error('tool handler threw', {
      invocation_id: context.invocationId,
      tool,
      error: message,
      stack: error instanceof Error ? error.stack : undefined,
    });
    return errorResponse(message);
  }
}

function parseArguments(json: string): Record<string, unknown> | null {
  if (json === '') return {};
  try {
    const value: unknown = JSON.parse(json);
    return value && typeof value === 'object' && !Array.isArray(value) ? (value as Record<string, unknown>) : null;
  } catch {
    return null;
  }
}

function toolContext(call: Call, log: PluginLogger, hostFor: (invocationId: string) => CallHost): ToolContext {
  const fromMetadata = call.metadata.get('toolport-invocation-id')[0];
  const context = call.request.context;
  const invocationId = call.request.invocationId || (typeof fromMetadata === 'string' ? fromMetadata : '');
  return {
    invocationId,
    taskId: context?.taskId ?? '',
    sessionId: context?.sessionId ?? '',
    workspaceId: context?.workspaceId ?? '',
    surface: context?.surface ?? '',
    // A host before profiles sends none: every session then sees what `default` gives.
    profile: context?.profile || 'default',
    log,
    host: hostFor(invocationId),
  };
}
