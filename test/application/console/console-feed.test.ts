import type { ConsoleEvent, PluginRecord } from '../../../src/api';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { consoleFeedOf } from '../../support/console-feed';
import { waitUntil } from '../../support/invocation';

/** docs/http-api.md §10: the live channel's plugin events carry the record as the API answers it, `pid` and `tls` included. */
describe('ConsoleFeed: plugin events', () => {
  let h: BackendHarness;
  let told: PluginRecord[];

  beforeEach(async () => {
    h = await createBackendHarness();
    const feed = consoleFeedOf(h);
    told = [];
    feed.subscribe((event: ConsoleEvent) => {
      if (event.type === 'plugin') told.push(event.data);
    });
  });

  afterEach(() => h.shutdown());

  it('tells the pid of the process an install started, a new one after a restart, and none once disabled', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    const instance = h.running.instanceOf('acme.tools')!;
    const firstPid = instance.pid()!;
    expect(told.at(-1)).toMatchObject({ id: 'acme.tools', status: 'active', pid: firstPid, tls: false });

    h.runtime.crash(instance);
    await waitUntil(() => told.some((view) => view.pid !== null && view.pid !== firstPid), 2000, 'the restarted process was told');
    expect(told.at(-1)).toMatchObject({ status: 'active', pid: instance.pid(), tls: false });

    await h.disable.execute('acme.tools');
    await waitUntil(() => told.at(-1)?.pid === null, 2000, 'the stopped process was told');
    expect(told.at(-1)).toMatchObject({ status: 'disabled', pid: null, tls: null });
  });
});

/** docs/approvals.md: on a shared store the console learns of requests other replicas hold, and of their end. */
describe('ConsoleFeed: approval requests other replicas hold', () => {
  let h: BackendHarness;
  afterEach(() => h.shutdown());

  /** A pending request as another replica's desk stores it, unknown to this one's. */
  const heldElsewhere = (id: string) => {
    const now = Date.now();
    return {
      id,
      session_id: 'session-b',
      task_id: 'task-b',
      workspace_id: 'prod',
      profile: 'default',
      tool: 'kandev_acme_tools_echo',
      plugin_id: 'acme.tools',
      arguments_sha256: 'a'.repeat(64),
      created_at: new Date(now).toISOString(),
      expires_at: new Date(now + 60_000).toISOString(),
      state: 'pending' as const,
      decided_by: null,
      reason: null,
      holder: 'replica-b',
    };
  };

  it('tells a request another replica stored, and tells it gone once settled there, while someone listens', async () => {
    h = await createBackendHarness();
    const lists: string[][] = [];
    const stop = consoleFeedOf(h, () => true).subscribe((event: ConsoleEvent) => {
      if (event.type === 'approvals') lists.push(event.data.map((r) => r.id));
    });
    await h.store.addApprovalRequest(heldElsewhere('held-on-b'));
    await waitUntil(() => lists.at(-1)?.[0] === 'held-on-b', 5000, 'the request held elsewhere told');
    const told = lists.length;
    await h.store.settleApprovalRequest('held-on-b', { state: 'approved', decided_by: 'admin', reason: null });
    await waitUntil(() => lists.length > told && lists.at(-1)?.length === 0, 5000, 'the settled request told gone');
    // A read finding the list unchanged tells nothing more.
    expect(lists.filter((list) => list.length === 0)).toHaveLength(1);
    stop();
  });

  it('reads nothing again for a backend alone: its own desk tells every change', async () => {
    h = await createBackendHarness();
    const lists: string[][] = [];
    const stop = consoleFeedOf(h, () => false).subscribe((event: ConsoleEvent) => {
      if (event.type === 'approvals') lists.push(event.data.map((r) => r.id));
    });
    await h.store.addApprovalRequest(heldElsewhere('not-told'));
    await new Promise((resolve) => setTimeout(resolve, 2500));
    expect(lists).toEqual([]);
    stop();
  });
});
