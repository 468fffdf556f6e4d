import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { HostCallBinding, HostGrant } from '../../../src/application/ports/host-access';
import type { PluginLaunchSpec } from '../../../src/application/ports/plugin-runtime';
import { invocationError, recordedCalls, toolCall, useRuntimeHarness, waitForFile } from './support/runtime-harness';

/** A spec whose Host grant records each call admitted to its process and each dismissal of one. */
function withRegistry(spec: PluginLaunchSpec) {
  const admitted: HostCallBinding[] = [];
  const dismissed: string[] = [];
  const grant: HostGrant = {
    address: 'unix:/nonexistent/host.sock',
    token: 'host-token',
    admit: (call) => {
      admitted.push(call);
      return () => void dismissed.push(call.invocationId);
    },
    release: async () => undefined,
  };
  return { spec: { ...spec, hostGrant: async () => grant }, admitted, dismissed };
}

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

/** Calls (docs/invocation.md): one gRPC call each, deadline, cancellation and size limit mapped to codes. */
describe('GrpcPluginRuntime.invoke', () => {
  const h = useRuntimeHarness();

  it('passes arguments, context and the invocation id, and returns the plugin result', async () => {
    const instance = await h.start(h.sdkSpec());
    const args = { text: 'héllo ✓', n: 3, nested: { list: [1, null, true] } };
    const call = toolCall('echo', args);
    const result = await h.runtime.invoke(instance, call);
    expect(result.isError).toBe(false);
    expect(result.text).toBe(`echoed ${call.invocationId}`);
    expect(JSON.parse(result.structuredContentJson)).toEqual({ arguments: args, context: call.context });
  });

  it('delivers cancellation to the handler within 1 s and answers CANCELLED', async () => {
    const spec = h.sdkSpec();
    const instance = await h.start(spec);
    const controller = new AbortController();
    const call = toolCall('slow', { ms: 30_000 }, { signal: controller.signal, timeoutMs: 60_000 });
    const pending = h.runtime.invoke(instance, call);
    await waitForFile(join(spec.dataDir, `started-${call.invocationId}`));
    const abortedAt = Date.now();
    controller.abort();
    const error = await invocationError(pending);
    expect(error.code).toBe('CANCELLED');
    await waitForFile(join(spec.dataDir, `aborted-${call.invocationId}`), 1000);
    const sawAbortAt = Number(readFileSync(join(spec.dataDir, `aborted-${call.invocationId}`), 'utf8'));
    expect(sawAbortAt - abortedAt).toBeLessThan(1000);
    expect(h.recorder.events).toEqual([]);
  });

  it('abandons a call past its deadline with TOOL_TIMEOUT; the handler is aborted and the plugin keeps serving', async () => {
    const spec = h.sdkSpec();
    const instance = await h.start(spec);
    const call = toolCall('slow', { ms: 30_000 }, { timeoutMs: 300 });
    const started = Date.now();
    const error = await invocationError(h.runtime.invoke(instance, call));
    expect(error.code).toBe('TOOL_TIMEOUT');
    expect(Date.now() - started).toBeLessThan(1500);
    await waitForFile(join(spec.dataDir, `aborted-${call.invocationId}`), 1000);
    const after = await h.runtime.invoke(instance, toolCall('echo', { again: true }));
    expect(JSON.parse(after.structuredContentJson).arguments).toEqual({ again: true });
  });

  it("registers each call with its process's Host grant, bound to the call's context, and removes it once answered, cancelled or timed out", async () => {
    const sdk = h.sdkSpec();
    const { spec, admitted, dismissed } = withRegistry(sdk);
    const instance = await h.start(spec);
    const answered = toolCall('echo', {});
    await h.runtime.invoke(instance, answered);
    expect(admitted).toEqual([
      {
        invocationId: answered.invocationId,
        workspaceId: answered.context.workspace_id,
        taskId: answered.context.task_id,
        sessionId: answered.context.session_id,
        profile: answered.context.profile,
      },
    ]);
    expect(dismissed).toEqual([answered.invocationId]);

    const controller = new AbortController();
    const cancelled = toolCall('slow', { ms: 30_000 }, { signal: controller.signal, timeoutMs: 60_000 });
    const pending = h.runtime.invoke(instance, cancelled);
    await waitForFile(join(sdk.dataDir, `started-${cancelled.invocationId}`));
    expect(dismissed).not.toContain(cancelled.invocationId);
    controller.abort();
    // Removed at the cancel itself, before the plugin has even been told.
    expect(dismissed).toContain(cancelled.invocationId);
    expect((await invocationError(pending)).code).toBe('CANCELLED');

    const timedOut = toolCall('slow', { ms: 30_000 }, { timeoutMs: 300 });
    expect((await invocationError(h.runtime.invoke(instance, timedOut))).code).toBe('TOOL_TIMEOUT');
    expect(dismissed).toContain(timedOut.invocationId);
    expect(admitted.map((call) => call.invocationId)).toEqual([answered.invocationId, cancelled.invocationId, timedOut.invocationId]);
  });

  it('refuses a 2 MB result with RESULT_TOO_LARGE without harming the host or the plugin', async () => {
    const instance = await h.start(h.sdkSpec());
    const pid = instance.pid();
    const error = await invocationError(h.runtime.invoke(instance, toolCall('big')));
    expect(error.code).toBe('RESULT_TOO_LARGE');
    const next = await h.runtime.invoke(instance, toolCall('echo', { next: 1 }));
    expect(JSON.parse(next.structuredContentJson).arguments).toEqual({ next: 1 });
    expect(instance.pid()).toBe(pid);
    expect(h.recorder.events).toEqual([]);
  });

  it('passes a tool error through, with the thrown message only', async () => {
    const instance = await h.start(h.sdkSpec());
    const result = await h.runtime.invoke(instance, toolCall('fail'));
    expect(result).toEqual({ text: 'the tool failed on purpose', structuredContentJson: '', isError: true });
  });

  it('answers PLUGIN_ERROR naming UNIMPLEMENTED for a tool the plugin does not handle (docs/invocation.md)', async () => {
    const instance = await h.start(h.sdkSpec());
    const error = await invocationError(h.runtime.invoke(instance, toolCall('no_such_tool')));
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toContain('UNIMPLEMENTED');
  });

  it.each([
    ['refuse', 'INVALID_ARGUMENT: the tag "x" is not known'],
    ['break', 'INTERNAL: database handle lost'],
  ])('answers PLUGIN_ERROR with the status a plugin without the SDK sent (%s), and the plugin keeps running', async (tool, status) => {
    const instance = await h.start(h.rawSpec('raw-plugin.js', [], 'raw.status'));
    const pid = instance.pid();
    const error = await invocationError(h.runtime.invoke(instance, toolCall(tool)));
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toBe(`raw.status/${tool} answered ${status}`);
    // Nothing crashed: the same process answers the next call, and no status change was told.
    expect((await h.runtime.invoke(instance, toolCall('echo'))).isError).toBe(false);
    expect(instance.pid()).toBe(pid);
    expect(h.recorder.events).toEqual([]);
  });

  it("gives the agent's blocks as the text block followed by the plugin's content_json blocks, verbatim", async () => {
    const instance = await h.start(h.rawSpec('content-plugin.js', [], 'raw.content'));
    const result = await h.runtime.invoke(instance, toolCall('picture'));
    expect(result).toEqual({
      text: 'a chart and its report',
      structuredContentJson: '{"bars":3}',
      isError: false,
      contentJson: JSON.stringify([
        { type: 'text', text: 'a chart and its report' },
        { type: 'image', data: 'iVBORw0KGgoAAAANSUhEUg==', mimeType: 'image/png', annotations: { audience: ['user'] } },
        { type: 'resource_link', uri: 'file:///reports/weekly.txt', name: 'weekly.txt', mimeType: 'text/plain' },
      ]),
    });
  });

  it.each([
    [
      'unknown_block',
      'raw.content/unknown_block answered content_json the agent cannot read: content[0].type must be one of text, image, audio, resource_link, resource, not "video"',
    ],
    ['not_a_list', 'raw.content/not_a_list answered content_json the agent cannot read: content is not a JSON array of content blocks'],
    ['no_data', 'raw.content/no_data answered content_json the agent cannot read: content[0].data must be a string for type "image"'],
    ['blank_text', 'raw.content/blank_text answered content blocks without text'],
  ])('refuses content_json from %s with BAD_RESULT naming what is wrong; the plugin keeps serving', async (tool, message) => {
    const instance = await h.start(h.rawSpec('content-plugin.js', [], 'raw.content'));
    const error = await invocationError(h.runtime.invoke(instance, toolCall(tool)));
    expect({ code: error.code, message: error.message }).toEqual({ code: 'BAD_RESULT', message });
    expect((await h.runtime.invoke(instance, toolCall('picture'))).isError).toBe(false);
    expect(h.recorder.events).toEqual([]);
  });

  it('refuses a call whose signal is already aborted, without sending it', async () => {
    const spec = h.sdkSpec();
    const instance = await h.start(spec);
    const controller = new AbortController();
    controller.abort();
    const error = await invocationError(h.runtime.invoke(instance, toolCall('count', {}, { signal: controller.signal })));
    expect(error.code).toBe('CANCELLED');
    await h.runtime.invoke(instance, toolCall('count'));
    expect(recordedCalls(spec.dataDir)).toHaveLength(1);
  });

  it('refuses calls to a stopped instance with PLUGIN_NOT_ACTIVE', async () => {
    const instance = await h.start(h.sdkSpec());
    await h.runtime.stop(instance);
    const error = await invocationError(h.runtime.invoke(instance, toolCall('echo')));
    expect(error.code).toBe('PLUGIN_NOT_ACTIVE');
  });

  it('serves concurrent calls on one channel, each answered with its own result', async () => {
    const instance = await h.start(h.sdkSpec());
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => h.runtime.invoke(instance, toolCall('echo', { i }))));
    expect(results.map((r) => JSON.parse(r.structuredContentJson).arguments.i)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });
});
