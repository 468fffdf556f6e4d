import { ScramLinkProof } from '../../../src/adapters/websocket/scram-link-proof';
import { BackendUrl } from '../../../src/application/sessions/backend-url';
import { LinkCredentials } from '../../../src/application/link/link-credentials';
import { AuthenticateSession } from '../../../src/application/sessions/authenticate-session';
import { ListSessions } from '../../../src/application/sessions/list-sessions';
import { RegisterAgentctl } from '../../../src/application/sessions/register-agentctl';
import { SessionChanges } from '../../../src/application/sessions/session-changes';
import { StartSession } from '../../../src/application/sessions/start-session';
import { StopAllSessions } from '../../../src/application/sessions/stop-all-sessions';
import { ReissueSessionToken } from '../../../src/application/sessions/reissue-session-token';
import { StopSession } from '../../../src/application/sessions/stop-session';
import { hashToken } from '../../../src/domain/tokens';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { waitUntil } from '../../support/invocation';

describe('session use cases', () => {
  let h: BackendHarness;
  let start: StartSession;
  let stop: StopSession;
  let authenticate: AuthenticateSession;
  let register: RegisterAgentctl;
  let list: ListSessions;
  let stopAll: StopAllSessions;

  beforeEach(async () => {
    h = await createBackendHarness({ liveSession: false });
    h.container.get(BackendUrl).set('http://127.0.0.1:7800');
    start = h.container.get(StartSession);
    stop = h.container.get(StopSession);
    authenticate = h.container.get(AuthenticateSession);
    register = h.container.get(RegisterAgentctl);
    list = h.container.get(ListSessions);
    stopAll = h.container.get(StopAllSessions);
  });

  afterEach(() => h.shutdown());

  /** The link's proof exchange as an agentctl holding `token` runs it; the session it binds. */
  async function linkWith(token: string) {
    const exchange = new LinkCredentials(token, new ScramLinkProof()).exchange();
    const begun = await authenticate.begin(exchange.opening());
    const proof = exchange.prove(begun.reply);
    if (!proof.ok) throw new Error(proof.reason);
    const { reply, session } = await authenticate.finish(begun.challenge, proof.value);
    expect(exchange.backendProved(reply)).toBe(true);
    return session;
  }

  it('launches an agentctl holding the current catalog and answers live with the MCP url and token', async () => {
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run']) });
    const started = await start.execute({ task_id: 'T1', workspace_id: 'W1', surface: 'kanban-task' });
    expect(started).toEqual({
      session_id: expect.any(String),
      task_id: 'T1',
      workspace_id: 'W1',
      surface: 'kanban-task',
      profile: 'default',
      status: 'live',
      mcp: { url: expect.stringMatching(/^http:\/\/127\.0\.0\.1:\d+\/mcp$/), token: expect.any(String) },
    });
    const spec = h.launcher.launches[0]!;
    expect(spec.snapshot).toEqual(h.catalog.current());
    expect(spec.identity).toEqual({ task_id: 'T1', session_id: started.session_id, workspace_id: 'W1', surface: 'kanban-task' });
    expect(spec.backendUrl).toBe('http://127.0.0.1:7800');
    expect(spec.mcpToken).toBe(started.mcp!.token);
    const stored = (await h.store.getSession(started.session_id))!;
    expect(stored).toMatchObject({ status: 'live', launched: true, mcp_url: started.mcp!.url, agentctl_pid: expect.any(Number) });
    expect(stored.session_token_hash).toBe(hashToken(spec.sessionToken));
    expect(stored.session_verifier).toMatch(/^SCRAM-SHA-256\$4096:/);
    expect(JSON.stringify(await h.store.listSessions())).not.toContain(spec.sessionToken);
    expect(JSON.stringify(await h.store.listSessions())).not.toContain(spec.mcpToken);
    expect(h.logger.text()).not.toContain(spec.sessionToken);
  });

  it('tells session watchers (the console, the demo) of every status a start goes through, starting first', async () => {
    const seen: string[] = [];
    h.container.get(SessionChanges).onChange((session) => seen.push(`${session.task_id} ${session.status}`));
    await start.execute({ task_id: 'T1', workspace_id: 'W1', surface: 'kanban-task' });
    await start.execute({ task_id: 'T2', workspace_id: 'W1', surface: 'kanban-task', launch: false });
    expect(seen).toEqual(['T1 starting', 'T1 live', 'T2 starting']);
  });

  it('answers AGENTCTL_START_FAILED when the launch fails, leaving the session stopped', async () => {
    h.launcher.failNext();
    await expect(start.execute({ task_id: 'T', workspace_id: 'W', surface: 'office-task' })).rejects.toMatchObject({ code: 'AGENTCTL_START_FAILED' });
    expect((await h.store.listSessions()).map((s) => s.status)).toEqual(['stopped']);
  });

  it('with launch: false answers the backend URL and a session token that authenticates', async () => {
    const started = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'external', launch: false });
    expect(started.status).toBe('starting');
    expect(started.mcp).toBeUndefined();
    expect(started.agentctl?.backend_url).toBe('http://127.0.0.1:7800');
    expect(h.launcher.launches).toEqual([]);
    expect((await linkWith(started.agentctl!.session_token)).session_id).toBe(started.session_id);
  });

  it('reissues the token of a session run elsewhere: the new one links, the old one never again, none stored in clear', async () => {
    const reissue = h.container.get(ReissueSessionToken);
    const started = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', launch: false });
    const old = started.agentctl!.session_token;
    // A link begun with the old token before the reissue fails its second step after it.
    const racing = new LinkCredentials(old, new ScramLinkProof()).exchange();
    const begun = await authenticate.begin(racing.opening());

    const again = await reissue.execute(started.session_id);
    expect(again).toEqual({
      session_id: started.session_id,
      task_id: 'T',
      workspace_id: 'W',
      surface: 'kanban-task',
      profile: 'default',
      status: 'starting',
      agentctl: { backend_url: 'http://127.0.0.1:7800', session_token: expect.any(String) },
    });
    const fresh = again.agentctl!.session_token;
    expect(fresh).not.toBe(old);
    const proof = racing.prove(begun.reply);
    if (!proof.ok) throw new Error(proof.reason);
    await expect(authenticate.finish(begun.challenge, proof.value)).rejects.toMatchObject({ code: 'SESSION_UNKNOWN' });
    await expect(linkWith(old)).rejects.toMatchObject({ code: 'SESSION_UNKNOWN', message: 'unknown or ended session' });
    expect((await linkWith(fresh)).session_id).toBe(started.session_id);
    expect((await h.store.getSession(started.session_id))!.session_token_hash).toBe(hashToken(fresh));
    expect(JSON.stringify(await h.store.listSessions())).not.toContain(fresh);
    expect(h.logger.text()).not.toContain(fresh);
  });

  it('refuses to reissue the token of a launched, linked or stopped session, changing nothing', async () => {
    const reissue = h.container.get(ReissueSessionToken);
    const launched = await start.execute({ task_id: 'T1', workspace_id: 'W', surface: 'kanban-task' });
    await expect(reissue.execute(launched.session_id)).rejects.toMatchObject({ code: 'SESSION_NOT_REISSUABLE', message: expect.stringContaining('launched') });

    const linked = await start.execute({ task_id: 'T2', workspace_id: 'W', surface: 'kanban-task', launch: false });
    await register.execute((await linkWith(linked.agentctl!.session_token)).session_id);
    const before = await h.store.getSession(linked.session_id);
    await expect(reissue.execute(linked.session_id)).rejects.toMatchObject({ code: 'SESSION_NOT_REISSUABLE', message: expect.stringContaining('linked now') });
    expect(await h.store.getSession(linked.session_id)).toEqual(before);

    const ended = await start.execute({ task_id: 'T3', workspace_id: 'W', surface: 'kanban-task', launch: false });
    await stop.execute(ended.session_id);
    await expect(reissue.execute(ended.session_id)).rejects.toMatchObject({ code: 'SESSION_NOT_REISSUABLE', message: expect.stringContaining('stopped') });
    await expect(reissue.execute('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('hello marks the session live and linked now; a token of no session is refused', async () => {
    const started = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', launch: false });
    const session = await linkWith(started.agentctl!.session_token);
    const identity = await register.execute(session.session_id);
    expect(identity).toEqual({ task_id: 'T', session_id: started.session_id, workspace_id: 'W', surface: 'kanban-task' });
    expect(await h.store.getSession(started.session_id)).toMatchObject({ status: 'live', last_linked_at: expect.any(String), link_down_since: null });
    await expect(linkWith('not-a-token')).rejects.toMatchObject({ code: 'SESSION_UNKNOWN', message: 'unknown or ended session' });
    await expect(linkWith('')).rejects.toMatchObject({ code: 'SESSION_UNKNOWN' });
  });

  it('marks a session dead when its agentctl exits on its own', async () => {
    const started = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task' });
    h.launcher.exit((await h.store.getSession(started.session_id))!.agentctl_pid!);
    await waitUntil(async () => (await h.store.getSession(started.session_id))?.status === 'dead', 2000, 'dead');
  });

  it('stops a session: agentctl stopped, status stopped (not dead), its token refused', async () => {
    const started = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task' });
    const token = h.launcher.launches[0]!.sessionToken;
    await stop.execute(started.session_id);
    expect(h.launcher.runningPids()).toEqual([]);
    await new Promise((resolve) => setImmediate(resolve));
    expect((await h.store.getSession(started.session_id))?.status).toBe('stopped');
    await expect(linkWith(token)).rejects.toMatchObject({ code: 'SESSION_STOPPED', message: 'unknown or ended session' });
    await expect(stop.execute('nope')).rejects.toMatchObject({ code: 'NOT_FOUND' });
  });

  it('refuses to link a session stored without a verifier (started before links used SCRAM)', async () => {
    const started = await start.execute({ task_id: 'T', workspace_id: 'W', surface: 'kanban-task', launch: false });
    const stored = (await h.store.getSession(started.session_id))!;
    await h.store.saveSession({ ...stored, session_verifier: '' });
    await expect(linkWith(started.agentctl!.session_token)).rejects.toMatchObject({ code: 'SESSION_UNVERIFIABLE', message: 'unknown or ended session' });
  });

  it('lists every session, stopped ones included, without tokens', async () => {
    const a = await start.execute({ task_id: 'T1', workspace_id: 'W', surface: 'kanban-task' });
    await start.execute({ task_id: 'T2', workspace_id: 'W', surface: 'kanban-task', launch: false });
    await stop.execute(a.session_id);
    const views = await list.execute();
    expect(views.map((v) => [v.task_id, v.status])).toEqual([
      ['T1', 'stopped'],
      ['T2', 'starting'],
    ]);
    expect(JSON.stringify(views)).not.toMatch(/token/);
  });

  it('at shutdown stops only the agentctls the backend launched', async () => {
    const launched = await start.execute({ task_id: 'T1', workspace_id: 'W', surface: 'kanban-task' });
    const external = await start.execute({ task_id: 'T2', workspace_id: 'W', surface: 'kanban-task', launch: false });
    await stopAll.execute();
    expect(h.launcher.runningPids()).toEqual([]);
    expect((await h.store.getSession(launched.session_id))?.status).toBe('stopped');
    expect((await h.store.getSession(external.session_id))?.status).toBe('starting');
  });
});
