import type { ToolCallRecord } from '../../../src/application/invocation/call-events';
import type { Call, ConsoleEvent } from '../../../src/api';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { consoleFeedOf } from '../../support/console-feed';
import { invokeInput, LIVE_SESSION, rejectionCode, waitUntil } from '../../support/invocation';
import { RecordingTracer } from '../../support/recording-tracer';

/** docs/invocation.md: the tool must be among the session's effective tools when the call is checked. */
describe('InvokeAgentTool and scopes', () => {
  let h: BackendHarness;
  let tracer: RecordingTracer;
  let ended: ToolCallRecord[];
  let told: Call[];

  beforeEach(async () => {
    tracer = new RecordingTracer();
    h = await createBackendHarness({ tracer });
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    ended = [];
    h.calls.onCall((call) => ended.push(call));
    told = [];
    consoleFeedOf(h).subscribe((event: ConsoleEvent) => {
      if (event.type === 'call') told.push(event.data);
    });
  });

  afterEach(() => h.shutdown());

  it('refuses a tool its plugin scope keeps from the session workspace with TOOL_NOT_ENABLED, at the revision the check ran', async () => {
    await h.catalog.commit((tx) => tx.savePluginScope('acme.tools', { workspaces: ['ws-2'], disabled_tools: {} }));
    const revision = h.catalog.current().revision;

    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('TOOL_NOT_ENABLED');
    expect(h.runtime.calls).toHaveLength(0);
    const [line] = h.logger.withMessage('tool call');
    expect(line!.fields).toMatchObject({ outcome: 'error', code: 'TOOL_NOT_ENABLED', catalog_revision: revision, plugin_id: 'acme.tools', local_name: 'echo' });
    expect(tracer.spans.map((s) => [s.facts.catalogRevision, s.ended])).toEqual([[revision, { outcome: 'error', code: 'TOOL_NOT_ENABLED' }]]);
    expect(ended.map((c) => [c.code, c.catalogRevision])).toEqual([['TOOL_NOT_ENABLED', revision]]);
    expect(told.map((c) => [c.code, c.catalog_revision])).toEqual([['TOOL_NOT_ENABLED', revision]]);
  });

  it("refuses a tool disabled in the workspace or outside the session's profile, and serves it once the policy allows it again", async () => {
    await h.catalog.commit((tx) => tx.savePluginScope('acme.tools', { workspaces: '*', disabled_tools: { 'ws-1': ['echo'] } }));
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('TOOL_NOT_ENABLED');
    // Another tool of the plugin is still there.
    await h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 1 }));

    await h.catalog.commit((tx) => tx.savePluginScope('acme.tools', { workspaces: '*', disabled_tools: {} }));
    await h.catalog.commit((tx) => tx.saveProfile({ name: 'narrow', include: ['kandev_acme_tools_slow'], exclude: [] }));
    const narrow = { ...LIVE_SESSION, profile: 'narrow' };
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { session: narrow })))).toBe('TOOL_NOT_ENABLED');
    await h.invoke.execute(invokeInput('acme.tools', 'echo'));
    expect(ended.map((c) => [c.localName, c.code])).toEqual([
      ['echo', 'TOOL_NOT_ENABLED'],
      ['slow', null],
      ['echo', 'TOOL_NOT_ENABLED'],
      ['echo', null],
    ]);
    expect(ended[3]!.catalogRevision).toBe(h.catalog.current().revision);
  });

  it('checks a tool missing from the session surface as SURFACE_NOT_ALLOWED first, and invalid arguments only once enabled', async () => {
    await h.catalog.commit((tx) => tx.savePluginScope('acme.tools', { workspaces: [], disabled_tools: {} }));
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { session: { ...LIVE_SESSION, surface: 'configuration' } })))).toBe(
      'SURFACE_NOT_ALLOWED',
    );
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 'not a number' })))).toBe('TOOL_NOT_ENABLED');
  });

  it('lets a call admitted before a scope change run to its end', async () => {
    const call = h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 200 }));
    await waitUntil(() => h.runtime.calls.length === 1, 2000, 'the call reached the plugin');
    await h.catalog.commit((tx) => tx.savePluginScope('acme.tools', { workspaces: [], disabled_tools: {} }));
    await expect(call).resolves.toMatchObject({ text: 'slept 200 ms', isError: false });
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 1 })))).toBe('TOOL_NOT_ENABLED');
  });
});
