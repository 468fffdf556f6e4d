import { AsyncLocalStorage } from 'node:async_hooks';
import { randomBytes, randomUUID } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, SdkError, SdkErrorCode, type InputRequiredResult, type Server, type ServerContext } from '@modelcontextprotocol/server';
import type { ToolCallOutcome } from '../../application/agentctl/tool-call-result';
import type { AskClient, ClientApprovalAnswer, ClientApprovalQuestion } from '../../application/ports/link-messages';
import { approvalElicitation, argumentsSha256 } from '../../domain/approval-binding';
import { openApprovalState, sealApprovalState, type ApprovalState } from './approval-state';
import { answeredAsJson } from './legacy-http-sessions';

/** The key a 2026-07-28 client answers under in `inputResponses`. */
export const APPROVAL_INPUT = 'approval';

/** How long past its expiry a state is still told apart from one never seen (a used one, an expired one). */
const REMEMBER_MS = 10 * 60_000;

/** One call a `client` rule holds on a 2026-07-28 connection, between its `input_required` and the retry. */
interface Waiting {
  state: ApprovalState;
  /** Hands the client's answer to the backend. */
  answer(answer: ClientApprovalAnswer): void;
  /** The call's own outcome, whichever request learns it. */
  outcome: Promise<ToolCallOutcome>;
  /** Ends the call when the retry that decided it is cancelled. */
  abort: AbortController;
  used: boolean;
}

/** What a `tools/call` sends that the approval binds. */
export interface ApprovedCall {
  name: string;
  arguments: unknown;
}

/** Runs the call through the agentctl's use case, with how its client is asked and its cancellation. */
export type RunCall = (askClient: AskClient, signal: AbortSignal) => Promise<ToolCallOutcome>;

/**
 * How the agentctl asks its MCP client about a call a `client` approval rule holds
 * (docs/approvals.md, client mode). A 2025-06-18 or 2025-11-25 client with the `elicitation`
 * capability gets an `elicitation/create` related to the `tools/call`. A 2026-07-28 client gets
 * `input_required` with a `requestState` this agentctl signed under its own random key, and
 * its retry decides the call, which went on waiting at the backend meanwhile: the first request
 * and the retry are one call. A client that cannot be asked is `unsupported` (an operator decides).
 * One instance serves every MCP server of the agentctl, as 2026-07-28 requests get one each.
 */
export class ClientApprovals {
  private readonly key = randomBytes(32);
  private readonly waiting = new Map<string, Waiting>();

  constructor(
    /** The session this agentctl serves, which a state binds. */
    private readonly session: () => string,
    private readonly now: () => number = Date.now,
  ) {}

  /** The asker for a 2025-era call: an elicitation on the call's own response stream. */
  legacyAsker(server: Server, ctx: ServerContext, call: ApprovedCall, signal: AbortSignal): AskClient {
    // Bound to the request's async context: the link asks from its own, and a 2025-era HTTP
    // transport tells by the context which answer stream a message belongs to.
    return AsyncLocalStorage.bind(async (question: ClientApprovalQuestion): Promise<ClientApprovalAnswer> => {
      // Answered as one JSON body (an unmarked tool a rule holds anyway): no stream to ask on.
      if (!legacyCanElicit(server) || answeredAsJson()) return 'unsupported';
      try {
        const result = await server.request(
          { method: 'elicitation/create', params: approvalElicitation(question.tool, question.pluginId, call.arguments) },
          { relatedRequestId: ctx.mcpReq.id, timeout: question.timeoutMs, signal },
        );
        return decisionOf(result);
      } catch (error) {
        // A JSON-RPC error instead of an answer denies the call; no answer in time is a timeout.
        return isTimeout(error) ? 'timeout' : 'denied';
      }
    });
  }

  /**
   * A 2026-07-28 `tools/call`: a retry carrying this agentctl's state decides the call it names;
   * any other request runs as a first one, answered `input_required` once the backend asks.
   * Throws ForgedStateError for a state this agentctl did not sign (the caller answers -32602).
   */
  async modernCall(ctx: ServerContext, call: ApprovedCall, run: RunCall, signal: AbortSignal): Promise<ToolCallOutcome | InputRequiredResult> {
    const raw = ctx.mcpReq.requestState();
    if (raw !== undefined) {
      const decided = this.retry(raw, call, ctx.mcpReq.inputResponses, signal);
      if (decided) return decided;
    }
    // A client that cannot be asked needs nothing of this (an AbortController a call costs some 10 µs).
    if (!elicits(ctx)) return run(UNSUPPORTED, signal);
    return this.first(ctx, call, run, signal);
  }

  /** The outcome a retry with `raw` gets, or undefined when it is to be served as a fresh call. */
  private retry(raw: unknown, call: ApprovedCall, responses: Record<string, unknown> | undefined, signal: AbortSignal): Promise<ToolCallOutcome> | undefined {
    this.forgetOld();
    const state = typeof raw === 'string' ? openApprovalState(this.key, raw) : undefined;
    if (!state) throw new ForgedStateError();
    if (state.session !== this.session() || state.tool !== call.name || state.argumentsSha256 !== argumentsSha256(call.arguments)) return undefined;
    const waiting = this.waiting.get(state.nonce);
    if (waiting?.used) return undefined;
    if (this.now() >= state.expiresAt) {
      if (waiting) waiting.used = true;
      return Promise.resolve({
        found: true,
        result: { kind: 'failure', code: 'APPROVAL_TIMEOUT', message: "the agent's client did not answer within the approval timeout; the call did not run" },
      });
    }
    const response = responses?.[APPROVAL_INPUT];
    if (!waiting || response === undefined) return undefined;
    waiting.used = true;
    const onAbort = (): void => waiting.abort.abort();
    signal.addEventListener('abort', onAbort, { once: true });
    waiting.answer(decisionOf(response));
    return waiting.outcome.finally(() => signal.removeEventListener('abort', onAbort));
  }

  /**
   * Runs the call; when the backend asks the client first, answers `input_required` and leaves
   * the call waiting for the retry (or its expiry, when the backend answers the timeout).
   */
  private async first(ctx: ServerContext, call: ApprovedCall, run: RunCall, signal: AbortSignal): Promise<ToolCallOutcome | InputRequiredResult> {
    this.forgetOld();
    const abort = new AbortController();
    let handedOver = false;
    // Until the call waits for a retry it is this request's; after, the retry's.
    const onAbort = (): void => {
      if (!handedOver) abort.abort();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    let askedFor!: (result: InputRequiredResult) => void;
    const asked = new Promise<InputRequiredResult>((resolve) => (askedFor = resolve));
    // The asker may run before run() has returned its promise: the entry gets this one.
    let settle!: { resolve(outcome: ToolCallOutcome): void; reject(error: unknown): void };
    const outcome = new Promise<ToolCallOutcome>((resolve, reject) => (settle = { resolve, reject }));
    // Nobody may await it if the retry never comes.
    outcome.catch(() => undefined);
    const ask: AskClient = (question) => {
      const state: ApprovalState = {
        nonce: randomUUID(),
        session: this.session(),
        tool: call.name,
        argumentsSha256: argumentsSha256(call.arguments),
        expiresAt: this.now() + question.timeoutMs,
      };
      return new Promise<ClientApprovalAnswer>((resolve) => {
        const timer = setTimeout(() => resolve('timeout'), question.timeoutMs);
        timer.unref?.();
        this.waiting.set(state.nonce, {
          state,
          answer: (answer) => {
            clearTimeout(timer);
            resolve(answer);
          },
          outcome,
          abort,
          used: false,
        });
        handedOver = true;
        askedFor({
          resultType: 'input_required',
          inputRequests: { [APPROVAL_INPUT]: { method: 'elicitation/create', params: approvalElicitation(question.tool, question.pluginId, call.arguments) } },
          requestState: sealApprovalState(this.key, state),
        } as InputRequiredResult);
      });
    };
    run(ask, abort.signal).then(settle.resolve, settle.reject);
    try {
      return await Promise.race([outcome, asked]);
    } finally {
      signal.removeEventListener('abort', onAbort);
    }
  }

  private forgetOld(): void {
    const now = this.now();
    for (const [nonce, waiting] of this.waiting) {
      if (now > waiting.state.expiresAt + REMEMBER_MS) this.waiting.delete(nonce);
    }
  }
}

const UNSUPPORTED: AskClient = () => Promise.resolve('unsupported');

/** Whether a 2026-07-28 request's client declared `elicitation`: it declares its capabilities itself, in `_meta`. */
function elicits(ctx: ServerContext): boolean {
  const capabilities = (ctx.mcpReq.envelope as Record<string, unknown> | undefined)?.[CLIENT_CAPABILITIES_META_KEY] as { elicitation?: unknown } | undefined;
  return capabilities?.elicitation !== undefined && capabilities.elicitation !== null;
}

/** A `requestState` this agentctl did not sign, or not one at all: JSON-RPC -32602. */
export class ForgedStateError extends Error {
  constructor() {
    super('Invalid requestState: it is malformed or was not issued by this agentctl');
  }
}

/** `accept` with `approve: true` proceeds; anything else (decline, cancel, `approve: false`, junk) denies. */
function decisionOf(response: unknown): ClientApprovalAnswer {
  if (!response || typeof response !== 'object') return 'denied';
  const { action, content } = response as { action?: unknown; content?: unknown };
  if (action !== 'accept' || !content || typeof content !== 'object') return 'denied';
  return (content as { approve?: unknown }).approve === true ? 'approved' : 'denied';
}

/** A 2025-era client can be asked when it declared `elicitation` (`{}` counts as form) and is not 2025-03-26. */
function legacyCanElicit(server: Server): boolean {
  if (server.getNegotiatedProtocolVersion() === '2025-03-26') return false;
  const elicitation = server.getClientCapabilities()?.elicitation as { form?: unknown; url?: unknown } | undefined;
  if (!elicitation) return false;
  return elicitation.form !== undefined || elicitation.url === undefined;
}

function isTimeout(error: unknown): boolean {
  return error instanceof SdkError && error.code === SdkErrorCode.RequestTimeout;
}
