import { ApprovalDesk } from '../../../src/application/approvals/approval-desk';
import { DecideApproval } from '../../../src/application/approvals/decide-approval';
import { GetApprovalRules } from '../../../src/application/approvals/get-approval-rules';
import { ListApprovals } from '../../../src/application/approvals/list-approvals';
import { SetApprovalRules } from '../../../src/application/approvals/set-approval-rules';
import type { AskClient, ClientApprovalAnswer, ClientApprovalQuestion } from '../../../src/application/ports/link-messages';
import { SessionStore } from '../../../src/application/ports/session-store';
import { DeleteProfile } from '../../../src/application/scopes/delete-profile';
import { SetProfile } from '../../../src/application/scopes/set-profile';
import { argumentsSha256 } from '../../../src/domain/approval-binding';
import type { ApprovalRequest, ApprovalRule } from '../../../src/domain/approvals';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour } from '../../support/fake-plugins';
import { manifestFixture, sessionRecordFixture, toolFixture } from '../../support/fixtures';
import { LIVE_SESSION, invokeInput, rejectionCode, waitUntil } from '../../support/invocation';

const SECRET_ARGUMENT = 'argument-secret-7a31';
const OPERATOR_ON_DESTRUCTIVE: ApprovalRule[] = [{ workspace: 'ws-1', profile: '*', tools: 'destructive', mode: 'operator' }];

describe('approvals', () => {
  let h: BackendHarness;
  let rules: SetApprovalRules;
  let list: ListApprovals;
  let decide: DecideApproval;

  async function setUp(settings: Parameters<typeof createBackendHarness>[0] = {}): Promise<void> {
    h = await createBackendHarness({ settings: { toolTimeoutMs: 2000, approvalTimeoutMs: 5000, ...settings.settings } });
    const manifest = manifestFixture('acme.tools', '1.0.0', ['echo', 'slow']);
    manifest.agent_tools.push(
      toolFixture('look', { annotations: { read_only_hint: true, destructive_hint: false, idempotent_hint: true, open_world_hint: false } }),
    );
    const behaviour = echoBehaviour();
    behaviour.tools.look = behaviour.tools.echo!;
    await h.install.execute({ path: h.addPackage(manifest, behaviour) });
    rules = h.container.get(SetApprovalRules);
    list = h.container.get(ListApprovals);
    decide = h.container.get(DecideApproval);
  }

  /** The one request waiting, once it is stored. */
  async function waitingRequest(): Promise<ApprovalRequest> {
    await waitUntil(async () => (await list.execute()).length === 1, 2000, 'one approval request');
    return (await list.execute())[0]!;
  }

  afterEach(() => h.shutdown());

  describe('rules', () => {
    beforeEach(() => setUp());

    it('stores the list in order, changes no catalog revision, and refuses a rule naming no profile', async () => {
      const revision = h.catalog.current().revision;
      const list: ApprovalRule[] = [...OPERATOR_ON_DESTRUCTIVE, { workspace: '*', profile: 'default', tools: '*', mode: 'client' }];
      expect(await rules.execute(list)).toEqual(list);
      expect(await h.container.get(GetApprovalRules).execute()).toEqual(list);
      expect(h.catalog.approvalRules()).toEqual(list);
      expect(h.catalog.current().revision).toBe(revision);
      await expect(rules.execute([{ workspace: '*', profile: 'ops', tools: '*', mode: 'operator' }])).rejects.toMatchObject({
        code: 'RULES_INVALID',
        details: [{ path: '[0].profile', message: expect.stringContaining('names no profile') }],
      });
      expect(await h.container.get(GetApprovalRules).execute()).toEqual(list);
    });

    it('keeps a profile a rule names from being deleted, with the rules in the details', async () => {
      await h.container.get(SetProfile).execute({ name: 'ops', body: { include: ['*'] } });
      await rules.execute([OPERATOR_ON_DESTRUCTIVE[0]!, { workspace: '*', profile: 'ops', tools: '*', mode: 'operator' }]);
      await expect(h.container.get(DeleteProfile).execute('ops')).rejects.toMatchObject({ code: 'PROFILE_IN_USE', details: { sessions: [], rules: [1] } });
      await rules.execute([]);
      await h.container.get(DeleteProfile).execute('ops');
    });
  });

  describe('operator mode', () => {
    beforeEach(async () => {
      await setUp();
      await rules.execute(OPERATOR_ON_DESTRUCTIVE);
    });

    it('holds a matching call until approved, then makes one plugin call; the request has the hash, never the arguments', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo', { value: SECRET_ARGUMENT }));
      const request = await waitingRequest();
      expect(h.runtime.calls).toEqual([]);
      expect(request).toEqual({
        id: expect.any(String),
        session_id: 'session-1',
        task_id: 'task-1',
        workspace_id: 'ws-1',
        profile: 'default',
        tool: 'kandev_acme_tools_echo',
        plugin_id: 'acme.tools',
        arguments_sha256: argumentsSha256({ value: SECRET_ARGUMENT }),
        created_at: expect.any(String),
        expires_at: new Date(Date.parse(request.created_at) + 5000).toISOString(),
      });
      expect(JSON.stringify(await h.store.getApprovalRequest(request.id))).not.toContain(SECRET_ARGUMENT);
      const decided = await decide.execute({ id: request.id, decision: 'approved', reason: 'looks right' });
      expect(decided).toEqual({ ...request, decision: 'approved', decided_by: 'admin', reason: 'looks right' });
      const answer = await call;
      expect(answer.invocationId).toBe(request.id);
      expect(h.runtime.calls).toHaveLength(1);
      // The tool deadline is the whole of it: the wait never counted against it.
      expect(h.runtime.calls[0]!.call.timeoutMs).toBe(2000);
      expect(h.logger.withMessage('tool call')[0]!.fields).toMatchObject({ approval: 'operator', approved_by: 'admin', outcome: 'success' });
      expect(h.calls.recentCalls()[0]).toMatchObject({ approval: 'operator', approvedBy: 'admin' });
      expect(await list.execute()).toEqual([]);
      await expect(decide.execute({ id: request.id, decision: 'denied' })).rejects.toMatchObject({ code: 'ALREADY_DECIDED' });
    });

    it('never holds a call no rule matches', async () => {
      await h.invoke.execute(invokeInput('acme.tools', 'look'));
      await h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { session: { ...LIVE_SESSION, workspace_id: 'ws-2' } }));
      expect(h.runtime.calls).toHaveLength(2);
      expect(await h.store.listPendingApprovals()).toEqual([]);
      expect(h.logger.withMessage('tool call').map((r) => r.fields.approval)).toEqual(['none', 'none']);
    });

    it('ends a denied call with APPROVAL_DENIED and its reason; the plugin never sees it', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo'));
      const request = await waitingRequest();
      await decide.execute({ id: request.id, decision: 'denied', reason: 'not during the release' });
      await expect(call).rejects.toMatchObject({ code: 'APPROVAL_DENIED', message: expect.stringContaining('not during the release') });
      expect(h.runtime.calls).toEqual([]);
      expect(h.logger.withMessage('tool call')[0]!.fields).toMatchObject({ approval: 'operator', code: 'APPROVAL_DENIED' });
      await expect(decide.execute({ id: request.id, decision: 'approved' })).rejects.toMatchObject({ code: 'ALREADY_DECIDED' });
    });

    it('withdraws the request when the caller cancels; a decision then finds nothing', async () => {
      const controller = new AbortController();
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { signal: controller.signal }));
      const request = await waitingRequest();
      controller.abort();
      expect(await rejectionCode(call)).toBe('CANCELLED');
      await expect(decide.execute({ id: request.id, decision: 'approved' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
      expect((await h.store.getApprovalRequest(request.id))?.state).toBe('withdrawn');
      expect(h.runtime.calls).toEqual([]);
    });

    it('withdraws the request when the plugin is disabled while the call waits', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo'));
      const request = await waitingRequest();
      await h.disable.execute('acme.tools');
      expect(await rejectionCode(call)).toBe('CANCELLED_BY_LIFECYCLE');
      expect((await h.store.getApprovalRequest(request.id))?.state).toBe('withdrawn');
    });

    it('runs every check again after approval: a session stopped meanwhile is refused, the plugin never called', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo'));
      const request = await waitingRequest();
      await h.store.saveSession(sessionRecordFixture({ ...LIVE_SESSION, status: 'stopped' }));
      await decide.execute({ id: request.id, decision: 'approved' });
      expect(await rejectionCode(call)).toBe('SESSION_NOT_LIVE');
      expect(h.runtime.calls).toEqual([]);
    });

    it('withdraws the request when the session stops while the call waits', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo'));
      const request = await waitingRequest();
      await h.container.get(SessionStore).saveSession(sessionRecordFixture({ ...LIVE_SESSION, status: 'stopped' }));
      expect(await rejectionCode(call)).toBe('SESSION_NOT_LIVE');
      expect((await h.store.getApprovalRequest(request.id))?.state).toBe('withdrawn');
      expect(h.runtime.calls).toEqual([]);
    });

    it('learns a decision made through another replica from the store', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo'));
      const request = await waitingRequest();
      // What another replica's DecideApproval does: settle it in the shared store, nothing here told.
      await h.store.settleApprovalRequest(request.id, { state: 'approved', decided_by: 'admin', reason: null });
      await call;
      expect(h.runtime.calls).toHaveLength(1);
    });
  });

  describe('client mode', () => {
    const CLIENT_ON_DESTRUCTIVE: ApprovalRule[] = [{ workspace: 'ws-1', profile: '*', tools: 'destructive', mode: 'client' }];
    /** An asker answering `answer`, recording what it was asked. */
    function asker(answer: ClientApprovalAnswer): { ask: AskClient; asked: ClientApprovalQuestion[] } {
      const asked: ClientApprovalQuestion[] = [];
      return {
        asked,
        ask: (question) => {
          asked.push(question);
          return Promise.resolve(answer);
        },
      };
    }

    beforeEach(async () => {
      await setUp();
      await rules.execute(CLIENT_ON_DESTRUCTIVE);
    });

    it('asks the client about the call (exposed name, plugin, approval timeout); approved, it runs once, as `approval: client`', async () => {
      const { ask, asked } = asker('approved');
      const holds: boolean[] = [];
      const answer = await h.invoke.execute(invokeInput('acme.tools', 'echo', { value: 'x' }, { askClient: ask, onHold: (held) => holds.push(held) }));
      expect(asked).toEqual([{ tool: 'kandev_acme_tools_echo', pluginId: 'acme.tools', timeoutMs: 5000 }]);
      expect(holds).toEqual([true, false]);
      expect(h.runtime.calls).toHaveLength(1);
      expect(h.runtime.calls[0]!.call.invocationId).toBe(answer.invocationId);
      expect(h.logger.withMessage('tool call')).toHaveLength(1);
      expect(h.logger.withMessage('tool call')[0]!.fields).toMatchObject({ approval: 'client', outcome: 'success' });
      expect(h.logger.withMessage('tool call')[0]!.fields).not.toHaveProperty('approved_by');
      expect(h.calls.recentCalls()[0]).toMatchObject({ approval: 'client' });
      expect(await h.store.listPendingApprovals()).toEqual([]);
    });

    it.each<[ClientApprovalAnswer, string]>([
      ['denied', 'APPROVAL_DENIED'],
      ['timeout', 'APPROVAL_TIMEOUT'],
    ])('a client answering %s ends the call %s; the plugin never sees it', async (answer, code) => {
      expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient: asker(answer).ask })))).toBe(code);
      expect(h.runtime.calls).toEqual([]);
      expect(h.logger.withMessage('tool call')[0]!.fields).toMatchObject({ approval: 'client', code });
    });

    it('a client that cannot be asked (unsupported), or no asker at all, is decided by an operator', async () => {
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient: asker('unsupported').ask }));
      await decide.execute({ id: (await waitingRequest()).id, decision: 'approved' });
      await call;
      const bare = h.invoke.execute(invokeInput('acme.tools', 'echo'));
      await decide.execute({ id: (await waitingRequest()).id, decision: 'approved' });
      await bare;
      expect(h.runtime.calls).toHaveLength(2);
      expect(h.logger.withMessage('tool call').map((r) => [r.fields.approval, r.fields.approved_by])).toEqual([
        ['operator', 'admin'],
        ['operator', 'admin'],
      ]);
    });

    it('counts a call waiting for its client against the session share', async () => {
      await setUp({ settings: { sessionMaxInflight: 1 } });
      await rules.execute(CLIENT_ON_DESTRUCTIVE);
      let release!: (answer: ClientApprovalAnswer) => void;
      const held = h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient: () => new Promise((resolve) => (release = resolve)) }));
      await waitUntil(() => release !== undefined, 2000, 'the client asked');
      expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient: asker('approved').ask })))).toBe('PLUGIN_BUSY');
      release('approved');
      await held;
    });

    it.each([
      ['a disable of the plugin', 'CANCELLED_BY_LIFECYCLE', () => h.disable.execute('acme.tools')],
      [
        'the session stopping',
        'SESSION_NOT_LIVE',
        () => h.container.get(SessionStore).saveSession(sessionRecordFixture({ ...LIVE_SESSION, status: 'stopped' })),
      ],
    ])('%s while the call waits for its client ends it %s; the plugin never sees it', async (_what, code, change) => {
      let asked = false;
      const askClient: AskClient = () => {
        asked = true;
        return new Promise(() => undefined);
      };
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient }));
      await waitUntil(() => asked, 2000, 'the client asked');
      await change();
      expect(await rejectionCode(call)).toBe(code);
      expect(h.runtime.calls).toEqual([]);
    });

    it('the caller cancelling ends the wait for the client with CANCELLED', async () => {
      const controller = new AbortController();
      let asked = false;
      const askClient: AskClient = () => {
        asked = true;
        return new Promise(() => undefined);
      };
      const call = h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { signal: controller.signal, askClient }));
      await waitUntil(() => asked, 2000, 'the client asked');
      controller.abort();
      expect(await rejectionCode(call)).toBe('CANCELLED');
      expect(h.runtime.calls).toEqual([]);
    });
  });

  it('ends a call nobody decides with APPROVAL_TIMEOUT; the plugin never sees it and the request is gone', async () => {
    await setUp({ settings: { approvalTimeoutMs: 150 } });
    await rules.execute(OPERATOR_ON_DESTRUCTIVE);
    const call = h.invoke.execute(invokeInput('acme.tools', 'echo'));
    const request = await waitingRequest();
    expect(await rejectionCode(call)).toBe('APPROVAL_TIMEOUT');
    expect(h.runtime.calls).toEqual([]);
    expect(await list.execute()).toEqual([]);
    await expect(decide.execute({ id: request.id, decision: 'approved' })).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('withdraws at a backend start the requests an earlier run held', async () => {
    await setUp();
    const left = {
      id: 'left-behind',
      session_id: 'session-1',
      task_id: 'task-1',
      workspace_id: 'ws-1',
      profile: 'default',
      tool: 'kandev_acme_tools_echo',
      plugin_id: 'acme.tools',
      arguments_sha256: argumentsSha256({}),
      created_at: new Date().toISOString(),
      expires_at: new Date(Date.now() + 60_000).toISOString(),
      state: 'pending' as const,
      decided_by: null,
      reason: null,
      holder: null,
    };
    await h.store.addApprovalRequest(left);
    expect((await list.execute()).map((r) => r.id)).toEqual(['left-behind']);
    await h.container.get(ApprovalDesk).start();
    expect(await list.execute()).toEqual([]);
    expect((await h.store.getApprovalRequest('left-behind'))?.state).toBe('withdrawn');
  });

  it('counts a waiting call against the session share only: past it the session gets PLUGIN_BUSY', async () => {
    await setUp({ settings: { sessionMaxInflight: 1 } });
    await rules.execute(OPERATOR_ON_DESTRUCTIVE);
    const held = h.invoke.execute(invokeInput('acme.tools', 'echo'));
    const request = await waitingRequest();
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('PLUGIN_BUSY');
    // Another session is not held back by it.
    await h.store.saveSession(sessionRecordFixture({ ...LIVE_SESSION, session_id: 'session-2', status: 'live' }));
    await h.invoke.execute(invokeInput('acme.tools', 'look', {}, { session: { ...LIVE_SESSION, session_id: 'session-2' } }));
    await decide.execute({ id: request.id, decision: 'approved' });
    await held;
  });
});
