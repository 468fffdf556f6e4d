import { SetApprovalRules } from '../../../src/application/approvals/set-approval-rules';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { echoBehaviour } from '../../support/fake-plugins';
import { manifestFixture, toolFixture } from '../../support/fixtures';
import { invokeInput, rejectionCode, waitUntil } from '../../support/invocation';
import { RecordingTracer } from '../../support/recording-tracer';

const INCOMING = { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01`, tracestate: 'agent=1' };
const CANARY = 'canary-argument-77c1';

describe('InvokeAgentTool spans', () => {
  let h: BackendHarness;
  let tracer: RecordingTracer;

  beforeEach(async () => {
    tracer = new RecordingTracer();
    h = await createBackendHarness({ tracer });
    const manifest = manifestFixture('acme.tools', '1.0.0', ['echo', 'slow']);
    manifest.agent_tools.push(toolFixture('fails'));
    const behaviour = echoBehaviour();
    behaviour.tools.fails = () => ({ text: 'no such tag', structuredContentJson: '', isError: true });
    await h.install.execute({ path: h.addPackage(manifest, behaviour) });
  });

  afterEach(() => h.shutdown());

  it('continues the caller context with a span for the call and a child for the plugin call, whose context the plugin gets', async () => {
    const answer = await h.invoke.execute(invokeInput('acme.tools', 'echo', { tag: CANARY }, { trace: INCOMING }));
    const [call, pluginCall] = tracer.spans;
    const facts = { invocationId: answer.invocationId, pluginId: 'acme.tools', tool: 'echo' };
    expect(call).toMatchObject({ kind: 'tool_call', parent: INCOMING, facts, ended: { outcome: 'success', code: null } });
    expect(pluginCall).toMatchObject({ kind: 'plugin_call', parent: { traceparent: call!.traceparent }, facts, ended: { outcome: 'success', code: null } });
    expect(h.runtime.calls[0]!.call.trace).toEqual({ traceparent: pluginCall!.traceparent, tracestate: INCOMING.tracestate });
    expect(JSON.stringify(tracer.spans)).not.toContain(CANARY);
  });

  it('says on the call span who let a held call through: the client, under a client rule', async () => {
    await h.container.get(SetApprovalRules).execute([{ workspace: '*', profile: '*', tools: 'kandev_acme_tools_echo', mode: 'client' }]);
    await h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient: () => Promise.resolve('approved') }));
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo', {}, { askClient: () => Promise.resolve('denied') })))).toBe(
      'APPROVAL_DENIED',
    );
    expect(tracer.spans.filter((s) => s.kind === 'tool_call').map((s) => [s.facts.approval, s.ended?.code])).toEqual([
      ['client', null],
      ['client', 'APPROVAL_DENIED'],
    ]);
  });

  it('ends a refused call with outcome error and its code, and makes no plugin call span', async () => {
    await h.disable.execute('acme.tools');
    expect(await rejectionCode(h.invoke.execute(invokeInput('acme.tools', 'echo')))).toBe('PLUGIN_NOT_ACTIVE');
    expect(tracer.spans.map((s) => [s.kind, s.ended])).toEqual([['tool_call', { outcome: 'error', code: 'PLUGIN_NOT_ACTIVE' }]]);
  });

  it('counts the plugin own error result as tool_error, with no code', async () => {
    await h.invoke.execute(invokeInput('acme.tools', 'fails'));
    expect(tracer.spans.map((s) => s.ended)).toEqual([
      { outcome: 'tool_error', code: null },
      { outcome: 'tool_error', code: null },
    ]);
  });

  it('ends both spans cancelled when the caller cancels the plugin call', async () => {
    const controller = new AbortController();
    const pending = h.invoke.execute(invokeInput('acme.tools', 'slow', { ms: 60_000 }, { signal: controller.signal }));
    await waitUntil(() => h.runtime.calls.length === 1);
    controller.abort();
    expect(await rejectionCode(pending)).toBe('CANCELLED');
    expect(tracer.spans.map((s) => s.ended)).toEqual([
      { outcome: 'cancelled', code: 'CANCELLED' },
      { outcome: 'cancelled', code: 'CANCELLED' },
    ]);
  });
});
