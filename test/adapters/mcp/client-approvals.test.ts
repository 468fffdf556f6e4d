import { randomBytes } from 'node:crypto';
import { CLIENT_CAPABILITIES_META_KEY, type InputRequiredResult, type ServerContext } from '@modelcontextprotocol/server';
import type { ToolCallOutcome } from '../../../src/application/agentctl/tool-call-result';
import type { ClientApprovalAnswer } from '../../../src/application/ports/link-messages';
import { openApprovalState, sealApprovalState, type ApprovalState } from '../../../src/adapters/mcp/approval-state';
import { ClientApprovals, ForgedStateError, type RunCall } from '../../../src/adapters/mcp/client-approvals';
import { argumentsSha256 } from '../../../src/domain/approval-binding';

const TOOL = 'kandev_acme_db_drop_table';
const ARGS = { table: 'users' };
const APPROVE = { action: 'accept', content: { approve: true } };

/** A 2026-07-28 request's context: its state, its input responses, and a client declaring elicitation. */
/** `elicitation: null`: the client declared no elicitation capability. */
function context(requestState?: string, inputResponses?: Record<string, unknown>, elicitation: unknown = {}): ServerContext {
  return {
    mcpReq: {
      id: 1,
      requestState: () => requestState,
      ...(inputResponses ? { inputResponses } : {}),
      envelope: { [CLIENT_CAPABILITIES_META_KEY]: elicitation === null ? {} : { elicitation } },
    },
  } as unknown as ServerContext;
}

describe('the 2026-07-28 approval state', () => {
  const key = randomBytes(32);
  const state: ApprovalState = { nonce: 'n-1', session: 's-1', tool: TOOL, argumentsSha256: argumentsSha256(ARGS), expiresAt: 1_700_000_000_000 };

  it('opens what it sealed, under the same key only', () => {
    const sealed = sealApprovalState(key, state);
    expect(openApprovalState(key, sealed)).toEqual(state);
    expect(openApprovalState(randomBytes(32), sealed)).toBeUndefined();
  });

  it('refuses an altered body, an altered MAC and text that is no state at all', () => {
    const sealed = sealApprovalState(key, state);
    const [body, mac] = sealed.split('.') as [string, string];
    const altered = Buffer.from(JSON.stringify(['n-1', 's-1', 'kandev_other', state.argumentsSha256, state.expiresAt])).toString('base64url');
    expect(openApprovalState(key, `${altered}.${mac}`)).toBeUndefined();
    expect(openApprovalState(key, `${body}.${mac.slice(1)}A`)).toBeUndefined();
    for (const junk of ['', 'abc', `${body}`, `${body}.${mac}.x`, '.']) expect(openApprovalState(key, junk)).toBeUndefined();
  });
});

describe('ClientApprovals on 2026-07-28', () => {
  let now = 1_000_000;
  let approvals: ClientApprovals;
  let runs: number;
  let answers: ClientApprovalAnswer[];
  /** A call whose backend asks the client once, then runs when approved. */
  const run: RunCall = async (ask) => {
    runs++;
    const answer = await ask({ tool: TOOL, pluginId: 'acme.db', timeoutMs: 60_000 });
    answers.push(answer);
    const outcome: ToolCallOutcome =
      answer === 'approved'
        ? { found: true, result: { kind: 'answer', text: 'dropped', isError: false } }
        : { found: true, result: { kind: 'failure', code: answer === 'timeout' ? 'APPROVAL_TIMEOUT' : 'APPROVAL_DENIED', message: answer } };
    return outcome;
  };
  const call = (ctx: ServerContext, args: unknown = ARGS) => approvals.modernCall(ctx, { name: TOOL, arguments: args }, run, new AbortController().signal);
  /** The first request: answered input_required; its state. */
  async function first(args: unknown = ARGS): Promise<string> {
    const answered = (await call(context(), args)) as InputRequiredResult;
    expect(answered.resultType).toBe('input_required');
    return answered.requestState!;
  }

  beforeEach(() => {
    now = 1_000_000;
    runs = 0;
    answers = [];
    approvals = new ClientApprovals(
      () => 'session-1',
      () => now,
    );
  });

  it('answers the first request input_required with the elicitation, and the retry decides that same call', async () => {
    const answered = (await call(context())) as InputRequiredResult;
    expect(answered).toEqual({
      resultType: 'input_required',
      inputRequests: {
        approval: {
          method: 'elicitation/create',
          params: {
            mode: 'form',
            message: `Allow ${TOOL} (plugin acme.db) with these arguments? {"table":"users"}`,
            requestedSchema: { type: 'object', properties: { approve: { type: 'boolean' } }, required: ['approve'] },
          },
        },
      },
      requestState: expect.any(String),
    });
    const decided = await call(context(answered.requestState, { approval: APPROVE }));
    expect(decided).toEqual({ found: true, result: { kind: 'answer', text: 'dropped', isError: false } });
    expect(runs).toBe(1);
    expect(answers).toEqual(['approved']);
  });

  it.each([
    ['decline', { action: 'decline' }],
    ['cancel', { action: 'cancel' }],
    ['approve: false', { action: 'accept', content: { approve: false } }],
    ['no content', { action: 'accept' }],
  ])('a retry answering %s denies the call', async (_name, response) => {
    const state = await first();
    await call(context(state, { approval: response }));
    expect(answers).toEqual(['denied']);
  });

  it('refuses a forged, altered or malformed state (the handler answers -32602) and runs nothing', async () => {
    const state = await first();
    const foreign = new ClientApprovals(() => 'session-1');
    const theirs = (await foreign.modernCall(context(), { name: TOOL, arguments: ARGS }, run, new AbortController().signal)) as InputRequiredResult;
    for (const bad of [theirs.requestState!, `${state}x`, 'not-a-state', state.replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))]) {
      await expect(call(context(bad, { approval: APPROVE }))).rejects.toBeInstanceOf(ForgedStateError);
    }
    expect(runs).toBe(2);
    expect(answers).toEqual([]);
  });

  it('a valid unused state past its expiry ends the call APPROVAL_TIMEOUT and never runs it', async () => {
    const state = await first();
    now += 60_000;
    expect(await call(context(state, { approval: APPROVE }))).toMatchObject({ found: true, result: { kind: 'failure', code: 'APPROVAL_TIMEOUT' } });
    expect(runs).toBe(1);
    expect(answers).toEqual([]);
  });

  it('a state used once gets a fresh input_required the second time; the call is not run again', async () => {
    const state = await first();
    await call(context(state, { approval: APPROVE }));
    const again = (await call(context(state, { approval: APPROVE }))) as InputRequiredResult;
    expect(again.resultType).toBe('input_required');
    expect(again.requestState).not.toBe(state);
    expect(answers).toEqual(['approved']);
  });

  it('a retry with other arguments, or with no approval answer, gets a fresh input_required and decides nothing', async () => {
    const state = await first();
    expect(((await call(context(state, { approval: APPROVE }), { table: 'orders' })) as InputRequiredResult).resultType).toBe('input_required');
    expect(((await call(context(state, {}))) as InputRequiredResult).resultType).toBe('input_required');
    expect(answers).toEqual([]);
    // The state is still unused: its own retry decides its call.
    await call(context(state, { approval: APPROVE }));
    expect(answers).toEqual(['approved']);
  });

  it('a state from another session of the same key gets a fresh input_required', async () => {
    const state = await first();
    const other = new ClientApprovals(() => 'session-2');
    (other as unknown as { key: Buffer }).key = (approvals as unknown as { key: Buffer }).key;
    expect(
      (
        (await other.modernCall(
          context(state, { approval: APPROVE }),
          { name: TOOL, arguments: ARGS },
          run,
          new AbortController().signal,
        )) as InputRequiredResult
      ).resultType,
    ).toBe('input_required');
    expect(answers).toEqual([]);
  });

  it('a client that did not declare elicitation is unsupported: an operator decides, no input_required', async () => {
    const answered = await approvals.modernCall(context(undefined, undefined, null), { name: TOOL, arguments: ARGS }, run, new AbortController().signal);
    expect(answers).toEqual(['unsupported']);
    expect(answered).toMatchObject({ found: true });
  });
});
