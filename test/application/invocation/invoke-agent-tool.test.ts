import { InvocationError } from '../../../src/domain/errors';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour } from '../../support/fake-plugins';
import { manifestFixture, sessionRecordFixture, toolFixture } from '../../support/fixtures';
import { LIVE_SESSION, invokeInput, rejectionCode, waitUntil } from '../../support/invocation';

const SECRET_ARGUMENT = 'argument-secret-4f1c';
const SECRET_RESULT = 'result-secret-9e2d';
const IMAGE = { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' };

describe('InvokeAgentTool', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness({ settings: { toolTimeoutMs: 2000 } });
    const manifest = manifestFixture('acme.tools', '1.0.0', ['echo', 'slow', 'crash']);
    manifest.agent_tools.push(
      toolFixture('strict', {
        input_schema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] },
        output_schema: { type: 'object', properties: { ok: { type: 'boolean' } }, required: ['ok'] },
      }),
      toolFixture('office_only', { surfaces: ['office-task'] }),
      toolFixture('fails'),
      toolFixture('secret'),
      toolFixture('picture'),
    );
    const behaviour = echoBehaviour();
    behaviour.tools.strict = (args) => ({
      text: 'strict',
      structuredContentJson: JSON.stringify(args.value === 'bad' ? { ok: 'no' } : { ok: true }),
      isError: false,
    });
    behaviour.tools.fails = () => ({ text: 'the tag does not exist', structuredContentJson: '{"reason":"missing"}', isError: true });
    behaviour.tools.secret = () => ({ text: SECRET_RESULT, structuredContentJson: JSON.stringify({ value: SECRET_RESULT }), isError: false });
    behaviour.tools.picture = () => ({
      text: 'a chart',
      structuredContentJson: '',
      isError: false,
      contentJson: JSON.stringify([{ type: 'text', text: 'a chart' }, IMAGE]),
    });
    await h.install.execute({ path: h.addPackage(manifest, behaviour) });
  });

  afterEach(() => h.shutdown());

  it('makes exactly one plugin call with a fresh invocation id and the bound session as context', async () => {
    const result = await h.invoke.execute(invokeInput('acme.tools', 'echo', { a: [1, 'x'] }));
    expect(h.runtime.calls).toHaveLength(1);
    const { call } = h.runtime.calls[0]!;
    expect(call.invocationId).toBe(result.invocationId);
    expect(call.timeoutMs).toBe(2000);
    expect(JSON.parse(call.argumentsJson)).toEqual({ a: [1, 'x'] });
    expect(result).toEqual({
      invocationId: result.invocationId,
      text: 'echo',
      structuredContent: {
        arguments: { a: [1, 'x'] },
        context: { task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task', profile: 'default' },
      },
      isError: false,
    });
    const second = await h.invoke.execute(invokeInput('acme.tools', 'echo'));
    expect(second.invocationId).not.toBe(result.invocationId);
  });

  it('treats missing arguments as {}', async () => {
    await h.invoke.execute(invokeInput('acme.tools', 'echo', undefined));
    expect(h.runtime.calls[0]!.call.argumentsJson).toBe('{}');
  });

  it.each([
    ['a session that is not stored', invokeInput('acme.tools', 'echo', {}, { session: { ...LIVE_SESSION, session_id: 'never-started' } }), 'SESSION_NOT_LIVE'],
    ['an unknown plugin', invokeInput('nope', 'echo'), 'PLUGIN_NOT_ACTIVE'],
    ['an undeclared tool', invokeInput('acme.tools', 'missing'), 'TOOL_NOT_DECLARED'],
    ['a tool of another surface', invokeInput('acme.tools', 'office_only'), 'SURFACE_NOT_ALLOWED'],
    ['invalid arguments', invokeInput('acme.tools', 'strict', { value: 7 }), 'INVALID_ARGUMENTS'],
  ])('refuses %s without calling the plugin', async (_what, input, code) => {
    expect(await rejectionCode(h.invoke.execute(input))).toBe(code);
    expect(h.runtime.calls).toEqual([]);
  });

  it('refuses a session stopped since its link was bound, reading the stored status', async () => {
    await h.store.saveSession(sessionRecordFixture({ session_id: LIVE_SESSION.session_id, status: 'stopped' }));
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('SESSION_NOT_LIVE');
    expect(h.runtime.calls).toEqual([]);
  });

  it('refuses a call to a disabled plugin with PLUGIN_NOT_ACTIVE without calling it', async () => {
    await h.disable.execute('acme.tools');
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('PLUGIN_NOT_ACTIVE');
    expect(h.runtime.calls).toEqual([]);
  });

  /** `count` more live sessions of the harness's task, as agents of other tasks would be. */
  async function otherSessions(count: number): Promise<Array<typeof LIVE_SESSION>> {
    const sessions = Array.from({ length: count }, (_, i) => ({ ...LIVE_SESSION, session_id: `other-${i}`, task_id: `task-other-${i}` }));
    for (const session of sessions)
      await h.store.saveSession(sessionRecordFixture({ ...session, session_token_hash: `h-${session.session_id}`, status: 'live' }));
    return sessions;
  }

  it('refuses the 33rd concurrent call with PLUGIN_BUSY; the 32 others each reach the plugin once', async () => {
    const controller = new AbortController();
    // Four agents at their share of 8 each fill the plugin's 32 slots.
    const agents = await otherSessions(4);
    const calls = agents.flatMap((session) =>
      Array.from({ length: 8 }, () => h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 60000 }, { session, signal: controller.signal }))),
    );
    await waitUntil(() => h.runtime.calls.length === 32);
    const busy = await h.invoke.execute(invokeInput('acme.tools', 'echo')).catch((e: unknown) => e);
    expect(busy).toBeInstanceOf(InvocationError);
    expect((busy as InvocationError).code).toBe('PLUGIN_BUSY');
    expect(h.runtime.calls).toHaveLength(32);
    controller.abort();
    const ended = await Promise.all(calls.map((call) => rejectionCode(call)));
    expect(new Set(ended)).toEqual(new Set(['CANCELLED']));
    await h.invoke.execute(invokeInput('acme.tools', 'echo'));
    expect(h.runtime.calls).toHaveLength(33);
  });

  it('gives each session its share of the slots: one agent holding 8 slow calls denies only itself', async () => {
    const controller = new AbortController();
    const [greedy] = await otherSessions(1);
    const held = Array.from({ length: 8 }, () =>
      h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 60000 }, { session: greedy, signal: controller.signal })),
    );
    await waitUntil(() => h.runtime.calls.length === 8);
    const ninth = await h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { session: greedy })).catch((e: unknown) => e);
    expect((ninth as InvocationError).code).toBe('PLUGIN_BUSY');
    expect((ninth as InvocationError).message).toMatch(/share is 8 of 32/);
    // Another agent still gets through.
    await expect(h.invoke.execute(invokeInput('acme.tools', 'echo'))).resolves.toMatchObject({ isError: false });
    controller.abort();
    await Promise.all(held.map((call) => rejectionCode(call)));
  });

  it('ends a call past the tool timeout setting with TOOL_TIMEOUT', async () => {
    const quick = await createBackendHarness({ settings: { toolTimeoutMs: 100 } });
    await quick.install.execute({ path: quick.addEchoPackage('acme.tools') });
    expect(await rejectionCode(quick.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 10000 })))).toBe('TOOL_TIMEOUT');
    expect(quick.runtime.calls[0]!.call.timeoutMs).toBe(100);
    await quick.shutdown();
  });

  it('cancels all the way to the plugin when the caller aborts, outcome cancelled', async () => {
    const controller = new AbortController();
    let pluginSawAbort = false;
    const call = h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 10000 }, { signal: controller.signal }));
    await waitUntil(() => h.runtime.calls.length === 1);
    h.runtime.calls[0]!.call.signal.addEventListener('abort', () => (pluginSawAbort = true));
    controller.abort();
    expect(await rejectionCode(call)).toBe('CANCELLED');
    expect(pluginSawAbort).toBe(true);
    expect(h.logger.withMessage('tool call').at(-1)?.fields).toMatchObject({ outcome: 'cancelled', code: 'CANCELLED' });
  });

  it('fails a call whose plugin crashes with PLUGIN_CRASHED, once', async () => {
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'crash')))).toBe('PLUGIN_CRASHED');
    expect(h.runtime.calls).toHaveLength(1);
  });

  it("passes a plugin's own error result through as is", async () => {
    const result = await h.invoke.execute(invokeInput('acme.tools', 'fails'));
    expect(result).toMatchObject({ text: 'the tag does not exist', structuredContent: { reason: 'missing' }, isError: true });
    expect(h.logger.withMessage('tool call').at(-1)?.fields.outcome).toBe('tool_error');
  });

  it("answers a plugin's content blocks verbatim, and none for a text-only result", async () => {
    const picture = await h.invoke.execute(invokeInput('acme.tools', 'picture'));
    expect(picture).toMatchObject({ text: 'a chart', structuredContent: null, isError: false, content: [{ type: 'text', text: 'a chart' }, IMAGE] });
    const plain = await h.invoke.execute(invokeInput('acme.tools', 'fails'));
    expect(plain).not.toHaveProperty('content');
  });

  it('refuses a result that breaks the output schema with BAD_RESULT', async () => {
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'strict', { value: 'bad' })))).toBe('BAD_RESULT');
    const ok = await h.invoke.execute(invokeInput('acme.tools', 'strict', { value: 'good' }));
    expect(ok.structuredContent).toEqual({ ok: true });
  });

  it('logs one record per call with ids, duration and outcome, never arguments or results', async () => {
    await h.invoke.execute(invokeInput('acme.tools', 'secret', { value: SECRET_ARGUMENT }));
    await h.invoke.execute(invokeInput('acme.tools', 'echo', { value: SECRET_ARGUMENT }));
    await h.invoke.execute(invokeInput('acme.tools', 'strict', { value: SECRET_ARGUMENT }));
    await h.invoke.execute(invokeInput('acme.tools', 'strict', { value: 1, note: SECRET_ARGUMENT })).catch(() => undefined);
    const records = h.logger.withMessage('tool call');
    expect(records).toHaveLength(4);
    expect(records[0]!.fields).toEqual({
      component: 'invoke',
      invocation_id: expect.any(String),
      plugin_id: 'acme.tools',
      local_name: 'secret',
      task_id: 'task-1',
      session_id: 'session-1',
      duration_ms: expect.any(Number),
      catalog_revision: h.catalog.current().revision,
      approval: 'none',
      outcome: 'success',
    });
    // A failure is a warning naming the code and the reason the agent reads, still without the value.
    expect(records[3]!.level).toBe('warn');
    expect(records[3]!.fields).toMatchObject({
      outcome: 'error',
      code: 'INVALID_ARGUMENTS',
      plugin_id: 'acme.tools',
      local_name: 'strict',
      reason: expect.stringContaining('/value must be string'),
    });
    expect(h.logger.text()).not.toContain(SECRET_ARGUMENT);
    expect(h.logger.text()).not.toContain(SECRET_RESULT);
  });
});
