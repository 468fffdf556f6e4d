import { argumentSizeProblem } from '../../domain/argument-check';
import { answeredOutcome, failedOutcome } from '../../domain/call-outcome';
import type { CatalogTool } from '../../domain/catalog';
import { InvocationError } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';
import type { CompiledSchema, SchemaCompiler, SchemaIssue } from '../../domain/schema-compiler';
import type { BackendLink } from '../ports/backend-link';
import type { RefusedCallReport } from '../ports/link-messages';
import type { Logger } from '../ports/logger';
import { DEFAULT_SETTINGS } from '../settings';
import type { CallSpan, TraceContext } from '../ports/tracer';
import { toolFailure, type ToolAnswer, type ToolCallOutcome, type ToolFailure } from './tool-call-result';
import type { AgentctlSession } from './session-identity';
import type { ToolRegistry } from './tool-registry';
import { WaitProgress, type ProgressReport } from './wait-progress';

export interface PluginToolCall {
  name: string;
  /** As the agent sent them; missing means `{}`. */
  arguments: unknown;
  /** The trace context of the agent's request (`params._meta`), if it sent one. */
  trace?: TraceContext;
  /** Set when the agent asked for progress (a `progressToken`): told while the call waits for approval. */
  onProgress?: ProgressReport;
}

type Validation = { ok: true } | { ok: false; failure: ToolFailure };

/**
 * docs/invocation.md at agentctl: find the listed tool, validate the arguments against its declared
 * input schema (nothing is sent when they are invalid), then make one backend call. Every
 * failure comes back as a result carrying its stable code. A call refused here (no such tool,
 * invalid arguments) is logged and reported to the backend (docs/agentctl.md §7), without its
 * arguments. The call's span,
 * when given, learns the tool and the outcome, and its context goes to the backend. While the
 * backend holds the call for an approval, a call that asked for progress is told every
 * `progressMs` (docs/approvals.md).
 */
export class CallPluginTool {
  /** Compiled once per catalog tool object; a new snapshot brings new objects. */
  private readonly validators = new WeakMap<CatalogTool, CompiledSchema>();

  constructor(
    private readonly registry: ToolRegistry,
    private readonly link: BackendLink,
    private readonly schemas: SchemaCompiler,
    private readonly logger: Logger,
    private readonly session: AgentctlSession,
    private readonly progressMs = DEFAULT_SETTINGS.approvalProgressMs,
  ) {}

  async execute(call: PluginToolCall, signal?: AbortSignal, span?: CallSpan): Promise<ToolCallOutcome> {
    const tool = this.registry.current().byName.get(call.name);
    if (!tool) {
      this.refused({ name: call.name, code: 'NOT_FOUND' });
      return { found: false, name: call.name };
    }
    span?.record({ pluginId: tool.plugin_id, tool: tool.local_name, exposedName: tool.exposed_name });
    const started = performance.now();
    const args = call.arguments ?? {};
    const validation = this.validate(tool, args);
    if (!validation.ok) {
      this.refused({ name: tool.exposed_name, code: 'INVALID_ARGUMENTS', tool: { pluginId: tool.plugin_id, localName: tool.local_name } });
      span?.end('error', 'INVALID_ARGUMENTS');
      return { found: true, result: validation.failure };
    }
    const waiting = call.onProgress ? new WaitProgress(call.onProgress, this.progressMs) : undefined;
    try {
      const trace = span ? span.context() : call.trace;
      const answer = await this.link.invokePluginTool(
        { pluginId: tool.plugin_id, localName: tool.local_name, arguments: isJsonObject(args) ? args : {}, ...(trace ? { trace } : {}) },
        signal,
        waiting && ((held) => waiting.held(held)),
      );
      const result: ToolAnswer = { kind: 'answer', text: answer.text, isError: answer.isError };
      if (answer.structuredContent !== null) result.structuredContent = answer.structuredContent;
      if (answer.content) result.content = answer.content;
      this.log(tool, started, answeredOutcome(answer.isError), answer.invocationId);
      span?.record({ invocationId: answer.invocationId });
      span?.end(answeredOutcome(answer.isError));
      return { found: true, result };
    } catch (error) {
      const failure =
        error instanceof InvocationError ? error : new InvocationError('BACKEND_UNAVAILABLE', `unexpected failure reaching the backend; the call may have run`);
      if (!(error instanceof InvocationError)) this.logger.error({ err: String(error), tool: tool.exposed_name }, 'plugin tool call failed unexpectedly');
      this.log(tool, started, failedOutcome(failure.code), null, failure.code);
      span?.end(failedOutcome(failure.code), failure.code);
      return { found: true, result: toolFailure(failure.code, failure.message) };
    } finally {
      waiting?.stop();
    }
  }

  private validate(tool: CatalogTool, args: unknown): Validation {
    const tooLarge = isJsonObject(args) ? argumentSizeProblem(tool.exposed_name, args) : undefined;
    if (tooLarge) return invalid(tooLarge);
    let validator = this.validators.get(tool);
    if (!validator) {
      const compiled = this.schemas.compile(tool.input_schema);
      if (!compiled.ok) return invalid(`${tool.exposed_name}: input schema does not compile: ${compiled.message}`);
      validator = compiled.schema;
      this.validators.set(tool, validator);
    }
    const issues = validator.validate(args);
    if (issues.length === 0) return { ok: true };
    return invalid(`${tool.exposed_name}: ${issues.map(describeIssue).join('; ')}`);
  }

  /** One info line per refusal, and the report to the backend; never the arguments. */
  private refused(report: RefusedCallReport): void {
    this.logger.info(
      { tool: report.name.slice(0, 256), code: report.code, session_id: this.session.current()?.session_id ?? null, outcome: 'refused' },
      'tool call refused',
    );
    this.link.reportRefusedCall(report);
  }

  /** One debug line per call; never the arguments or the result. */
  private log(tool: CatalogTool, started: number, outcome: string, invocationId: string | null, code?: string): void {
    this.logger.debug(
      {
        tool: tool.exposed_name,
        plugin_id: tool.plugin_id,
        local_name: tool.local_name,
        invocation_id: invocationId,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
        outcome,
        ...(code ? { code } : {}),
      },
      'plugin tool call',
    );
  }
}

function invalid(message: string): Validation {
  return { ok: false, failure: toolFailure('INVALID_ARGUMENTS', message) };
}

function describeIssue(issue: SchemaIssue): string {
  return `${issue.instancePath === '' ? '/' : issue.instancePath} ${issue.message}`;
}
