import { GET_TASK_CONTEXT } from './built-in-tools';
import type { CallPluginTool, PluginToolCall } from './call-plugin-tool';
import type { GetTaskContext } from './get-task-context';
import type { ToolCallOutcome, ToolCallResult } from './tool-call-result';
import type { ToolRegistry } from './tool-registry';
import type { AskClient } from '../ports/link-messages';
import type { CallSpan, Tracer } from '../ports/tracer';
import { errorCode } from '../shared/error-code';
import { answeredOutcome } from '../../domain/call-outcome';

/**
 * An agent's tool call: built-ins first (their names are reserved), then the catalog's tools.
 * Each call is one span, continuing the agent's trace context when it sent one.
 */
export class CallTool {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly getTaskContext: GetTaskContext,
    private readonly callPluginTool: CallPluginTool,
    private readonly firstSnapshotWaitMs: number,
    private readonly tracer: Tracer,
  ) {}

  /** `askClient`: how the agent's client is asked under a `client` approval rule (docs/approvals.md). */
  async execute(call: PluginToolCall, signal?: AbortSignal, askClient?: AskClient): Promise<ToolCallOutcome> {
    const span = this.tracer.startToolCall(call.trace);
    try {
      const outcome = await this.dispatch(call, signal, span, askClient);
      // A plugin tool's span is ended already, with its own outcome and code.
      if (!outcome.found) span.end('error', 'NOT_FOUND');
      else endBuiltIn(span, outcome.result);
      return outcome;
    } catch (error) {
      span.end('error', errorCode(error));
      throw error;
    }
  }

  private async dispatch(call: PluginToolCall, signal: AbortSignal | undefined, span: CallSpan, askClient?: AskClient): Promise<ToolCallOutcome> {
    if (call.name === GET_TASK_CONTEXT) {
      span.record({ tool: GET_TASK_CONTEXT, exposedName: GET_TASK_CONTEXT });
      return { found: true, result: await this.getTaskContext.execute() };
    }
    // A call can only name a listed tool; before the first snapshot there may be none yet.
    if (!this.registry.isHolding()) await this.registry.whenHolding(this.firstSnapshotWaitMs);
    return this.callPluginTool.execute(call, signal, span, askClient);
  }
}

/** A built-in's failure carries its code; an answer is a success or the tool's own error. */
function endBuiltIn(span: CallSpan, result: ToolCallResult): void {
  if (result.kind === 'failure') span.end('error', result.code);
  else span.end(answeredOutcome(result.isError));
}
