import { DescribePlugin } from '../../../src/application/plugins/describe-plugin';
import { GetPlugin } from '../../../src/application/plugins/get-plugin';
import { ListPlugins } from '../../../src/application/plugins/list-plugins';
import { PluginViews } from '../../../src/application/plugins/plugin-views';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { waitUntil } from '../../support/invocation';

/** docs/http-api.md §4: every record answer says which process serves the plugin here (`pid`, `tls`). */
describe('plugin record views: pid and tls', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
  });

  afterEach(() => h.shutdown());

  it('an active plugin shows the pid of the process serving it and whether its link is mutual TLS', async () => {
    const record = await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    const pid = h.running.instanceOf('acme.tools')!.pid()!;
    expect(h.runtime.isAlive(pid)).toBe(true);
    const views = h.container.get(PluginViews);
    expect(await views.one(record)).toMatchObject({ id: 'acme.tools', status: 'active', pid, tls: false });
    expect(views.local(record)).toMatchObject({ pid, tls: false });
    expect(await h.container.get(ListPlugins).execute()).toMatchObject([{ id: 'acme.tools', pid, tls: false }]);
    expect(await h.container.get(GetPlugin).execute('acme.tools')).toMatchObject({ pid, tls: false });
    expect(await h.container.get(DescribePlugin).execute('acme.tools')).toMatchObject({ pid, tls: false, process: { pid } });
    // A backend alone has no replicas to show.
    expect(await views.one(record)).not.toHaveProperty('replicas');
  });

  it('a restart shows the new process; a disabled plugin shows nulls', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    const first = h.running.instanceOf('acme.tools')!;
    const firstPid = first.pid()!;
    h.runtime.crash(first);
    await waitUntil(() => (first.pid() ?? firstPid) !== firstPid, 2000, 'the plugin restarted');
    const restarted = await h.container.get(GetPlugin).execute('acme.tools');
    expect(restarted.pid).toBe(first.pid());
    expect(restarted.pid).not.toBe(firstPid);

    const disabled = await h.disable.execute('acme.tools');
    expect(await h.container.get(PluginViews).one(disabled)).toMatchObject({ status: 'disabled', pid: null, tls: null });
    expect(await h.container.get(ListPlugins).execute()).toMatchObject([{ pid: null, tls: null }]);
  });
});
