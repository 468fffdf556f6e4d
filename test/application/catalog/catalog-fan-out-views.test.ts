import type { CatalogPush, PushAnswer } from '../../../src/application/ports/catalog-publisher';
import { AgentctlRequests } from '../../../src/application/sessions/agentctl-requests';
import { BackendUrl } from '../../../src/application/sessions/backend-url';
import { StartSession } from '../../../src/application/sessions/start-session';
import type { CatalogSnapshot } from '../../../src/domain/catalog';
import { effectiveTools, type PluginScope, type Profile, type ScopeView } from '../../../src/domain/scopes';
import type { LinkedSession } from '../../../src/domain/session';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { sessionRecordFixture } from '../../support/fixtures';

const WS1_DEFAULT: ScopeView = { workspace: 'ws-1', profile: 'default', surface: 'kanban-task' };
const WS2_DEFAULT: ScopeView = { workspace: 'ws-2', profile: 'default', surface: 'kanban-task' };
const WS1_NARROW: ScopeView = { workspace: 'ws-1', profile: 'narrow', surface: 'kanban-task' };

/**
 * Linked fake agentctls that hold what they are pushed as the real one does: a full snapshot
 * replaces what is held, a delta applies to the revision held (base_mismatch otherwise).
 */
class FakeAgentctls {
  readonly held = new Map<string, CatalogSnapshot>();

  constructor(private readonly h: BackendHarness) {}

  link(sessionId: string, view: ScopeView): void {
    this.h.publisher.link(sessionId);
    this.held.set(sessionId, this.h.fanOut.serve(sessionId, view));
    this.h.publisher.handle(sessionId, (id, push) => this.apply(id, push));
  }

  private apply(sessionId: string, push: CatalogPush): PushAnswer {
    const held = this.held.get(sessionId)!;
    if ('snapshot' in push) {
      this.held.set(sessionId, push.snapshot);
      return { outcome: 'applied', generation: push.snapshot.generation, revision: push.snapshot.revision };
    }
    const { delta } = push;
    if (delta.baseRevision !== held.revision) return { outcome: 'base_mismatch', generation: held.generation, revision: held.revision };
    const replaced = new Set([...delta.remove, ...delta.upsert.map((tool) => tool.exposed_name)]);
    const tools = [...held.tools.filter((tool) => !replaced.has(tool.exposed_name)), ...delta.upsert].sort((a, b) =>
      a.exposed_name < b.exposed_name ? -1 : 1,
    );
    this.held.set(sessionId, { generation: delta.generation, revision: delta.revision, tools });
    return { outcome: 'applied', generation: delta.generation, revision: delta.revision };
  }

  names(sessionId: string): string[] {
    return this.held.get(sessionId)!.tools.map((tool) => tool.exposed_name);
  }
}

describe('CatalogFanOut per view', () => {
  let h: BackendHarness;
  let agentctls: FakeAgentctls;

  beforeEach(async () => {
    h = await createBackendHarness();
    h.fanOut.execute();
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run', 'stop']) });
    await h.install.execute({ path: h.addEchoPackage('b', '1.0.0', ['look']) });
    await h.fanOut.whenIdle();
    agentctls = new FakeAgentctls(h);
  });

  afterEach(async () => {
    await h.shutdown();
  });

  const setScope = (pluginId: string, scope: PluginScope): Promise<void> => h.catalog.commit((tx) => tx.savePluginScope(pluginId, scope));
  const setProfile = (profile: Profile): Promise<void> => h.catalog.commit((tx) => tx.saveProfile(profile));

  /** Pushes per session since `from` (an index into the publisher's attempts). */
  function pushesSince(from: number): Record<string, number> {
    const counts: Record<string, number> = {};
    for (const attempt of h.publisher.attempts.slice(from)) counts[attempt.sessionId] = (counts[attempt.sessionId] ?? 0) + 1;
    return counts;
  }

  it('a scope change affecting one of two views pushes exactly once to each of its sessions and to no other', async () => {
    agentctls.link('s1', WS1_DEFAULT);
    agentctls.link('s2', WS1_DEFAULT);
    agentctls.link('s3', WS2_DEFAULT);
    const before = h.publisher.attempts.length;
    const revision = h.catalog.current().revision;

    await setScope('a', { workspaces: ['ws-1'], disabled_tools: {} });
    await h.fanOut.whenIdle();

    expect(h.catalog.current().revision).toBe(revision + 1);
    expect(pushesSince(before)).toEqual({ s3: 1 });
    const push = h.publisher.attempts[before]!.push;
    expect('delta' in push && push.delta).toMatchObject({
      baseRevision: revision,
      revision: revision + 1,
      upsert: [],
      remove: ['kandev_a_run', 'kandev_a_stop'],
    });
    expect(agentctls.names('s3')).toEqual(['kandev_b_look']);
    expect(agentctls.names('s1')).toEqual(['kandev_a_run', 'kandev_a_stop', 'kandev_b_look']);
  });

  it('a profile edit reaches only the sessions of that profile, once each', async () => {
    await setProfile({ name: 'narrow', include: ['*'], exclude: [] });
    await h.fanOut.whenIdle();
    agentctls.link('wide', WS1_DEFAULT);
    agentctls.link('narrow-1', WS1_NARROW);
    agentctls.link('narrow-2', WS1_NARROW);
    const before = h.publisher.attempts.length;

    await setProfile({ name: 'narrow', include: ['b'], exclude: [] });
    await h.fanOut.whenIdle();

    expect(pushesSince(before)).toEqual({ 'narrow-1': 1, 'narrow-2': 1 });
    // Both share one serialised push.
    expect(h.publisher.rounds.slice(-1)[0]!.sessionIds.sort()).toEqual(['narrow-1', 'narrow-2']);
    expect(agentctls.names('narrow-1')).toEqual(['kandev_b_look']);
    expect(agentctls.names('wide')).toHaveLength(3);
  });

  it('a session a change left alone hears nothing, and a later change reaches it as a delta from the older revision it holds', async () => {
    agentctls.link('s1', WS1_DEFAULT);
    agentctls.link('s3', WS2_DEFAULT);
    const held = h.catalog.current().revision;

    await setScope('a', { workspaces: ['ws-1'], disabled_tools: {} });
    await h.fanOut.whenIdle();
    const before = h.publisher.attempts.length;
    await setScope('a', { workspaces: ['ws-1'], disabled_tools: { 'ws-1': ['run'] } });
    await h.fanOut.whenIdle();

    expect(pushesSince(before)).toEqual({ s1: 1 });
    const push = h.publisher.attempts[before]!.push;
    expect('delta' in push && push.delta).toMatchObject({ baseRevision: held, revision: held + 2, upsert: [], remove: ['kandev_a_run'] });
    for (const [sessionId, view] of [
      ['s1', WS1_DEFAULT],
      ['s3', WS2_DEFAULT],
    ] as const) {
      expect(agentctls.names(sessionId)).toEqual(effectiveTools(h.catalog.current().tools, h.catalog.policy(), view).map((tool) => tool.exposed_name));
    }
    // A content change then reaches both, each from the revision it holds.
    const next = h.publisher.attempts.length;
    await h.install.execute({ path: h.addEchoPackage('c', '1.0.0', ['go']) });
    await h.fanOut.whenIdle();
    expect(pushesSince(next)).toEqual({ s1: 1, s3: 1 });
    const bases = h.publisher.attempts.slice(next).map((attempt) => [attempt.sessionId, 'delta' in attempt.push ? attempt.push.delta.baseRevision : 'full']);
    expect(Object.fromEntries(bases)).toEqual({ s1: held + 2, s3: held + 1 });
    expect(agentctls.names('s3')).toEqual(['kandev_b_look', 'kandev_c_go']);
  });

  it('a session whose held revision left the history gets its view in full', async () => {
    const small = await createBackendHarness({ fanOut: { history: 2 } });
    small.fanOut.execute();
    await small.install.execute({ path: small.addEchoPackage('a', '1.0.0', ['run']) });
    const fakes = new FakeAgentctls(small);
    fakes.link('s3', WS2_DEFAULT);
    for (const id of ['x', 'y', 'z']) {
      await small.catalog.commit((tx) => tx.saveProfile({ name: id, include: ['*'], exclude: [] }));
    }
    const before = small.publisher.attempts.length;
    await small.catalog.commit((tx) => tx.savePluginScope('a', { workspaces: [], disabled_tools: {} }));
    await small.fanOut.whenIdle();
    expect(small.publisher.attempts.slice(before).map((a) => ['snapshot' in a.push, a.sessionId])).toEqual([[true, 's3']]);
    expect(fakes.names('s3')).toEqual([]);
    await small.shutdown();
  });

  it('the pull and the launch snapshot carry only the session view, with the whole catalog generation and revision', async () => {
    await setScope('a', { workspaces: ['ws-1'], disabled_tools: { '*': ['stop'] } });
    await setProfile({ name: 'narrow', include: ['kandev_a_*'], exclude: [] });
    const { generation, revision } = h.catalog.current();
    const requests = h.container.get(AgentctlRequests);
    const session = (workspace: string, profile: string): LinkedSession => ({
      task_id: 't',
      session_id: `${workspace}-${profile}`,
      workspace_id: workspace,
      surface: 'kanban-task',
      profile,
    });
    h.publisher.link('ws-1-narrow');

    expect(await requests.snapshot(session('ws-1', 'narrow'))).toEqual({
      generation,
      revision,
      tools: [expect.objectContaining({ exposed_name: 'kandev_a_run' })],
    });
    expect((await requests.snapshot(session('ws-2', 'default'))).tools.map((tool) => tool.exposed_name)).toEqual(['kandev_b_look']);

    h.container.get(BackendUrl).set('http://127.0.0.1:7800');
    await h.container.get(StartSession).execute({ task_id: 't', workspace_id: 'ws-2', surface: 'kanban-task', profile: 'narrow' });
    await h.container.get(StartSession).execute({ task_id: 't', workspace_id: 'ws-1', surface: 'kanban-task' });
    const launched = h.launcher.launches.map((spec) => spec.snapshot);
    expect(launched.map((snapshot) => [snapshot.generation, snapshot.revision, snapshot.tools.map((tool) => tool.exposed_name)])).toEqual([
      [generation, revision, []],
      [generation, revision, ['kandev_a_run', 'kandev_b_look']],
    ]);
  });

  it('a session whose stored profile was deleted sees no plugin tools', async () => {
    await setProfile({ name: 'gone', include: ['*'], exclude: [] });
    await h.store.saveSession(sessionRecordFixture({ session_id: 'g', profile: 'gone' }));
    agentctls.link('g', { workspace: 'ws-1', profile: 'gone', surface: 'kanban-task' });
    expect(agentctls.names('g')).toHaveLength(3);
    await h.catalog.commit((tx) => tx.deleteProfile('gone'));
    await h.fanOut.whenIdle();
    expect(agentctls.names('g')).toEqual([]);
  });
});
