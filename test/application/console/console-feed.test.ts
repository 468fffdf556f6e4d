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
