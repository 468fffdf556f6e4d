import { InvocationError } from '../../domain/errors';
import { checkResult, decideInvocation } from '../../domain/invocation-policy';
import type { JsonObject } from '../../domain/json';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { SessionIdentity, SessionStatus } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { PluginRuntime } from '../ports/plugin-runtime';
import type { PluginStore } from '../ports/plugin-store';
import type { RunningPlugins } from '../plugins/running-plugins';
import type { Settings } from '../settings';
import { invocationError } from './invocation-errors';

export interface InvokeAgentToolInput {
  /** The identity the caller's link is bound to (never taken from a payload). */
  session: SessionIdentity & { status: SessionStatus };
  pluginId: string;
  localName: string;
  /** As received; missing means `{}`. */
  arguments: unknown;
  /** The caller's cancellation (MCP cancel, dropped connection, cancel frame). */
  signal: AbortSignal;
}

export interface InvokeAgentToolResult {
  invocation_id: string;
  text: string;
  structured_content: JsonObject | null;
  is_error: boolean;
}

type Outcome = 'success' | 'tool_error' | 'error' | 'cancelled';

/**
 * The backend side of a tool call (CONTRACT §6): the check chain, then exactly one plugin
 * call with a fresh invocation id, the tool timeout and the caller's or a lifecycle
 * cancellation, then the result checks. Refusals and failures throw InvocationError. One
 * log record per call, which never carries arguments or results.
 */
export class InvokeAgentTool {
  constructor(
    private readonly store: PluginStore,
    private readonly runtime: PluginRuntime,
    private readonly running: RunningPlugins,
    private readonly schemas: SchemaCompiler,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  async execute(input: InvokeAgentToolInput): Promise<InvokeAgentToolResult> {
    const invocationId = this.ids.newId();
    const started = this.clock.now();
    try {
      const result = await this.call(invocationId, input);
      this.log(invocationId, input, started, result.is_error ? 'tool_error' : 'success');
      return result;
    } catch (error) {
      const code = error instanceof InvocationError ? error.code : 'INTERNAL';
      const outcome: Outcome = code === 'CANCELLED' || code === 'CANCELLED_BY_LIFECYCLE' ? 'cancelled' : 'error';
      this.log(invocationId, input, started, outcome, code);
      throw error;
    }
  }

  private async call(invocationId: string, input: InvokeAgentToolInput): Promise<InvokeAgentToolResult> {
    // The link bound the session when it connected; a stop since then must refuse calls.
    const stored = this.store.getSession(input.session.session_id);
    const decision = decideInvocation(
      {
        session: { ...input.session, status: stored?.status ?? input.session.status },
        plugin: this.store.getPlugin(input.pluginId),
        pluginId: input.pluginId,
        localName: input.localName,
        arguments: input.arguments,
        inFlight: this.running.inFlight(input.pluginId),
        maxInFlight: this.settings.pluginMaxInflight,
        prefix: this.settings.toolPrefix,
      },
      this.schemas,
    );
    if (!decision.allowed) throw decision.error;
    const instance = this.running.instanceOf(input.pluginId);
    if (!instance) throw invocationError('PLUGIN_NOT_ACTIVE', `plugin ${input.pluginId} is not active`);
    if (input.signal.aborted) throw invocationError('CANCELLED', 'the call was cancelled');
    const flight = this.running.begin(instance);
    const { session } = input;
    try {
      const result = await this.runtime
        .invoke(instance, {
          invocationId,
          localName: input.localName,
          argumentsJson: JSON.stringify(decision.arguments),
          context: { task_id: session.task_id, session_id: session.session_id, workspace_id: session.workspace_id, surface: session.surface },
          timeoutMs: this.settings.toolTimeoutMs,
          signal: AbortSignal.any([input.signal, flight.signal]),
        })
        .catch((error: unknown) => {
          // The runtime only sees an aborted signal; which side aborted decides the code.
          if (flight.cancelledByLifecycle()) throw flight.signal.reason;
          throw error;
        });
      const checked = checkResult(result, decision.declaration, this.schemas);
      if (!checked.ok) throw checked.error;
      return { invocation_id: invocationId, text: checked.text, structured_content: checked.structuredContent, is_error: checked.isError };
    } finally {
      flight.end();
    }
  }

  private log(invocationId: string, input: InvokeAgentToolInput, started: number, outcome: Outcome, code?: string): void {
    this.logger.info(
      {
        invocation_id: invocationId,
        plugin_id: input.pluginId,
        local_name: input.localName,
        task_id: input.session.task_id,
        session_id: input.session.session_id,
        duration_ms: this.clock.now() - started,
        outcome,
        ...(code === undefined ? {} : { code }),
      },
      'tool call',
    );
  }
}
