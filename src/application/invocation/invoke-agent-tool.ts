import { approvalModeFor, type ApprovalMode } from '../../domain/approvals';
import { answeredOutcome, failedOutcome, type CallOutcome } from '../../domain/call-outcome';
import { InvocationError } from '../../domain/errors';
import { checkResult, decideInvocation, type InvocationDecision } from '../../domain/invocation-policy';
import { DEFAULT_TOOL_PREFIX, exposedToolName } from '../../domain/naming';
import type { PluginRecord } from '../../domain/plugin-record';
import type { SchemaCompiler } from '../../domain/schema-compiler';
import type { LinkedSession, SessionStatus } from '../../domain/session';
import type { ApprovalDesk } from '../approvals/approval-desk';
import type { AskClient, PluginToolAnswer, PluginToolRequest } from '../ports/link-messages';
import type { CatalogService } from '../catalog/catalog-service';
import type { CallEvents } from './call-events';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { PluginRuntime } from '../ports/plugin-runtime';
import type { SessionStore } from '../ports/session-store';
import type { CallSpan, ToolCallFacts, Tracer } from '../ports/tracer';
import type { RunningPlugins } from '../plugins/running-plugins';
import type { Settings } from '../settings';
import { eitherSignal } from '../shared/either-signal';
import { errorCode, errorMessage } from '../shared/error-code';

export interface InvokeAgentToolInput extends PluginToolRequest {
  /** The identity the caller's link is bound to (never taken from a payload). */
  session: LinkedSession;
  /** The caller's cancellation (MCP cancel, dropped connection, cancel frame). */
  signal: AbortSignal;
  /**
   * Told `held: true` (with the longest the wait may take) when an approval rule holds the call,
   * and `held: false` once it may proceed or the wait ended, so the caller stops timing the call
   * meanwhile (docs/approvals.md). Never told for a call no rule holds.
   */
  onHold?: (held: boolean, waitMs: number) => void;
  /**
   * Asks the caller's MCP client about a call a `client` rule holds (docs/approvals.md, client
   * mode); without it, or when it answers `unsupported`, an operator decides.
   */
  askClient?: AskClient;
}

/**
 * The backend side of a tool call (docs/invocation.md): the check chain against the stored session
 * and the committed plugin record, then exactly one plugin call with a fresh invocation id, the tool timeout and the
 * caller's or a lifecycle cancellation, then the result checks. Refusals and failures throw
 * InvocationError. Each call is logged once and told to the call events once, with one outcome;
 * neither ever carries arguments or results. Each call is also a span continuing the caller's
 * trace (checks and slot included), with a child span for the plugin call (docs/operations.md §8).
 * A call an approval rule holds (docs/approvals.md) waits for its decision after the argument
 * check and before the plugin's cap, counting against the session's share only; once it may
 * proceed every check runs again, and only then does the tool deadline start.
 */
export class InvokeAgentTool {
  constructor(
    private readonly store: SessionStore,
    private readonly catalog: CatalogService,
    private readonly runtime: PluginRuntime,
    private readonly running: RunningPlugins,
    private readonly schemas: SchemaCompiler,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly settings: Settings,
    private readonly calls: CallEvents,
    private readonly logger: Logger,
    private readonly tracer: Tracer,
    private readonly desk: ApprovalDesk,
  ) {}

  async execute(input: InvokeAgentToolInput): Promise<PluginToolAnswer> {
    const invocationId = this.ids.newId();
    const started = this.clock.now();
    const span = this.tracer.startToolCall(input.trace, callFacts(invocationId, input));
    // The revision the check ran at (docs/invocation.md); a call refused before it, the one it ended at.
    const checkedAt: CallFacts = { approval: 'none' };
    try {
      const answer = await this.call(invocationId, input, span, checkedAt);
      this.ended(invocationId, input, started, answeredOutcome(answer.isError), null, null, checkedAt);
      span.record(spanApproval(checkedAt));
      span.end(answeredOutcome(answer.isError));
      return answer;
    } catch (error) {
      const code = errorCode(error);
      this.ended(invocationId, input, started, failedOutcome(code), code, errorMessage(error), checkedAt);
      span.record({ catalogRevision: checkedAt.revision ?? this.catalog.current().revision, ...spanApproval(checkedAt) });
      span.end(failedOutcome(code), code);
      throw error;
    }
  }

  private async call(invocationId: string, input: InvokeAgentToolInput, span: CallSpan, checkedAt: CallFacts): Promise<PluginToolAnswer> {
    // The link bound the session when it connected; a stop since then must refuse calls.
    const stored = await this.store.getSession(input.session.session_id).catch((error: unknown) => {
      // A shared store out of reach (docs/operations.md §10): no stop can commit meanwhile, so the session
      // as its link bound it still holds, and calls go on with what this replica runs.
      if (errorCode(error) === 'STORE_UNAVAILABLE') return { status: 'live' as const };
      throw error;
    });
    if (!stored) throw new InvocationError('SESSION_NOT_LIVE', 'the session no longer exists');
    const plugin = this.catalog.committedPlugin(input.pluginId);
    checkedAt.revision = this.catalog.current().revision;
    span.record({ catalogRevision: checkedAt.revision });
    const mode = this.approvalMode(plugin, input);
    if (mode !== null) {
      await this.awaitApproval(invocationId, input, stored.status, checkedAt, mode);
      span.record({ catalogRevision: checkedAt.revision });
    }
    const decision = this.decide(input, mode === null ? stored.status : await this.statusNow(input), 'all');
    if (!decision.allowed) throw decision.error;
    const instance = this.running.instanceOf(input.pluginId);
    if (!instance) throw new InvocationError('PLUGIN_NOT_ACTIVE', `plugin ${input.pluginId} is not active`);
    if (input.signal.aborted) throw new InvocationError('CANCELLED', 'the call was cancelled');
    const flight = this.running.begin(instance, input.session.session_id);
    const { session } = input;
    const pluginSpan = span.pluginCall(callFacts(invocationId, input));
    const trace = pluginSpan.context();
    try {
      const result = await this.runtime
        .invoke(instance, {
          invocationId,
          localName: input.localName,
          // An MCP server's tool is called by the name it was imported from.
          ...serverNameOf(decision.declaration),
          argumentsJson: JSON.stringify(decision.arguments),
          context: {
            task_id: session.task_id,
            session_id: session.session_id,
            workspace_id: session.workspace_id,
            surface: session.surface,
            profile: session.profile,
          },
          timeoutMs: this.settings.toolTimeoutMs,
          signal: eitherSignal(input.signal, flight.signal),
          ...(trace ? { trace } : {}),
        })
        .catch((error: unknown) => {
          // The runtime only sees an aborted signal; which side aborted decides the code.
          const failure: unknown = flight.cancelledByLifecycle() ? flight.signal.reason : error;
          pluginSpan.end(failedOutcome(errorCode(failure)), errorCode(failure));
          throw failure;
        });
      pluginSpan.end(answeredOutcome(result.isError));
      const checked = checkResult(result, decision.declaration, this.schemas);
      if (!checked.ok) throw checked.error;
      const answer: PluginToolAnswer = { invocationId, text: checked.text, structuredContent: checked.structuredContent, isError: checked.isError };
      if (checked.content) answer.content = checked.content;
      return answer;
    } finally {
      flight.end();
    }
  }

  /** The mode of the first approval rule matching the call, or null; a tool the plugin does not declare is refused later. */
  private approvalMode(plugin: PluginRecord | undefined, input: InvokeAgentToolInput): ApprovalMode | null {
    const rules = this.catalog.approvalRules();
    if (rules.length === 0) return null;
    const declaration = plugin?.manifest.agent_tools.find((tool) => tool.name === input.localName);
    if (!declaration) return null;
    const exposedName = exposedToolName(this.settings.toolPrefix ?? DEFAULT_TOOL_PREFIX, input.pluginId, input.localName);
    return approvalModeFor(rules, input.session, {
      exposed_name: exposedName,
      plugin_id: input.pluginId,
      destructive: declaration.annotations.destructive_hint,
    });
  }

  /**
   * The checks up to the arguments (a waiting call holds no slot of the plugin, only the
   * session's share), then the decision: the agentctl's client's for a `client` rule it can ask,
   * otherwise an operator's (docs/approvals.md).
   */
  private async awaitApproval(invocationId: string, input: InvokeAgentToolInput, status: SessionStatus, facts: CallFacts, mode: ApprovalMode): Promise<void> {
    const first = this.decide(input, status, 'session-share');
    if (!first.allowed) throw first.error;
    const exposedName = exposedToolName(this.settings.toolPrefix ?? DEFAULT_TOOL_PREFIX, input.pluginId, input.localName);
    input.onHold?.(true, this.settings.approvalTimeoutMs);
    try {
      if (mode === 'client' && input.askClient) {
        const answer = await this.desk.askClient(
          { invocationId, session: input.session, pluginId: input.pluginId, tool: exposedName, arguments: first.arguments, signal: input.signal },
          input.askClient,
        );
        if (answer !== 'unsupported') {
          facts.approval = 'client';
          if (answer === 'denied') throw new InvocationError('APPROVAL_DENIED', "the agent's client declined the call");
          if (answer === 'timeout') throw clientTimedOut(this.settings.approvalTimeoutMs);
          facts.revision = this.catalog.current().revision;
          return;
        }
      }
      facts.approval = 'operator';
      facts.approvedBy = await this.desk.hold({
        invocationId,
        session: input.session,
        pluginId: input.pluginId,
        tool: exposedName,
        arguments: first.arguments,
        signal: input.signal,
      });
    } finally {
      input.onHold?.(false, 0);
    }
    facts.revision = this.catalog.current().revision;
  }

  /** The session's status as stored now (after a wait, a stop must refuse the call). */
  private async statusNow(input: InvokeAgentToolInput): Promise<SessionStatus> {
    const stored = await this.store.getSession(input.session.session_id).catch((error: unknown) => {
      if (errorCode(error) === 'STORE_UNAVAILABLE') return { status: 'live' as const };
      throw error;
    });
    if (!stored) throw new InvocationError('SESSION_NOT_LIVE', 'the session no longer exists');
    return stored.status;
  }

  /** The §6 chain; `session-share` skips the plugin's cap and counts the calls waiting for approval in the session's share. */
  private decide(input: InvokeAgentToolInput, status: SessionStatus, cap: 'all' | 'session-share'): InvocationDecision {
    const waiting = cap === 'session-share' ? this.desk.waitingFrom(input.pluginId, input.session.session_id) : 0;
    return decideInvocation(
      {
        session: { ...input.session, status },
        policy: this.catalog.policy(),
        plugin: this.catalog.committedPlugin(input.pluginId),
        pluginId: input.pluginId,
        localName: input.localName,
        arguments: input.arguments,
        inFlight: cap === 'all' ? this.running.inFlight(input.pluginId) : 0,
        maxInFlight: this.settings.pluginMaxInflight,
        sessionInFlight: this.running.inFlightFrom(input.pluginId, input.session.session_id) + waiting,
        sessionMaxInFlight: this.settings.sessionMaxInflight,
        prefix: this.settings.toolPrefix,
      },
      this.schemas,
    );
  }

  /** `reason` is the failure's message, which the agent sees with its code (it never quotes a value). */
  private ended(
    invocationId: string,
    input: InvokeAgentToolInput,
    started: number,
    outcome: CallOutcome,
    code: string | null,
    reason: string | null,
    checkedAt: CallFacts,
  ): void {
    const durationMs = this.clock.now() - started;
    const catalogRevision = checkedAt.revision ?? this.catalog.current().revision;
    const fields = {
      invocation_id: invocationId,
      plugin_id: input.pluginId,
      local_name: input.localName,
      task_id: input.session.task_id,
      session_id: input.session.session_id,
      duration_ms: durationMs,
      catalog_revision: catalogRevision,
      approval: checkedAt.approval,
      ...(checkedAt.approvedBy === undefined ? {} : { approved_by: checkedAt.approvedBy }),
      outcome,
      ...(code === null ? {} : { code, reason }),
    };
    if (outcome === 'error') this.logger.warn(fields, 'tool call');
    else this.logger.info(fields, 'tool call');
    this.calls.callEnded({
      invocationId,
      pluginId: input.pluginId,
      localName: input.localName,
      taskId: input.session.task_id,
      sessionId: input.session.session_id,
      outcome,
      code,
      startedAt: new Date(started).toISOString(),
      durationMs,
      catalogRevision,
      approval: checkedAt.approval,
      ...(checkedAt.approvedBy === undefined ? {} : { approvedBy: checkedAt.approvedBy }),
    });
  }
}

function clientTimedOut(timeoutMs: number): InvocationError {
  return new InvocationError('APPROVAL_TIMEOUT', `the agent's client did not answer within the approval timeout (${timeoutMs} ms); the call did not run`);
}

function spanApproval(facts: CallFacts): ToolCallFacts {
  return facts.approvedBy === undefined ? { approval: facts.approval } : { approval: facts.approval, approvedBy: facts.approvedBy };
}

/** What the call learns on its way that its log line, span and call event carry. */
interface CallFacts {
  /** The catalog revision its checks ran at (the last run, after an approval). */
  revision?: number;
  approval: 'none' | ApprovalMode;
  approvedBy?: string;
}

/** What every span of one call says about it; never an argument or a result. */
function callFacts(invocationId: string, input: InvokeAgentToolInput): ToolCallFacts {
  return { invocationId, pluginId: input.pluginId, tool: input.localName };
}

/** The original server name an imported MCP tool carries (docs/plugin-protocol.md, MCP servers), as a call field. */
function serverNameOf(declaration: object): { serverName?: string } {
  const name = (declaration as { server_name?: unknown }).server_name;
  return typeof name === 'string' ? { serverName: name } : {};
}
