import { ConsoleFeed } from '../../../src/application/console/console-feed';
import { ListPlugins } from '../../../src/application/plugins/list-plugins';
import { PluginViews } from '../../../src/application/plugins/plugin-views';
import { PluginLogs } from '../../../src/application/ports/plugin-logs';
import { PluginRuntime } from '../../../src/application/ports/plugin-runtime';
import { ListSessions } from '../../../src/application/sessions/list-sessions';
import { SessionChanges } from '../../../src/application/sessions/session-changes';
import type { ConsoleEvent, PluginRecord } from '../../../src/api';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { waitUntil } from '../../support/invocation';

/** docs/http-api.md §10: the live channel's plugin events carry the record as the API answers it, `pid` and `tls` included. */
describe('ConsoleFeed: plugin events', () => {
  let h: BackendHarness;
  let told: PluginRecord[];

  beforeEach(async () => {
    h = await createBackendHarness();
    const feed = new ConsoleFeed({
      catalog: h.catalog,
      calls: h.calls,
      sessions: h.container.get(SessionChanges),
      logs: h.container.get(PluginLogs),
      listPlugins: h.container.get(ListPlugins),
      listSessions: h.container.get(ListSessions),
      views: h.container.get(PluginViews),
      processes: h.container.get(PluginRuntime),
      callTotals: async () => ({ total: 0, byOutcome: { success: 0, tool_error: 0, error: 0, cancelled: 0, refused: 0 }, byCode: {} }),
      toolPrefix: h.settings.toolPrefix,
    });
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
