import { GET_TASK_CONTEXT } from './built-in-tools';
import type { CallPluginTool, PluginToolCall } from './call-plugin-tool';
import type { GetTaskContext } from './get-task-context';
import type { ToolCallOutcome } from './tool-call-result';
import type { ToolRegistry } from './tool-registry';

/** `tools/call`: built-ins first (their names are reserved), then the catalog's tools. */
export class CallTool {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly getTaskContext: GetTaskContext,
    private readonly callPluginTool: CallPluginTool,
    private readonly firstSnapshotWaitMs: number,
  ) {}

  async execute(call: PluginToolCall, signal?: AbortSignal): Promise<ToolCallOutcome> {
    if (call.name === GET_TASK_CONTEXT) return { found: true, result: await this.getTaskContext.execute() };
    // A call can only name a listed tool; before the first snapshot there may be none yet.
    if (!this.registry.isHolding()) await this.registry.whenHolding(this.firstSnapshotWaitMs);
    return this.callPluginTool.execute(call, signal);
  }
}
