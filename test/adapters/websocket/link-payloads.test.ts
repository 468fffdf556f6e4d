import type { JsonObject } from '../../../src/domain/json';
import {
  askClientPayload,
  clientAnswerPayload,
  decodeAskClient,
  decodeClientAnswer,
  decodeHello,
  decodeHelloAnswer,
  decodeInvoke,
  decodeInvokeAnswer,
  decodeRefusedCall,
  helloPayload,
  invokeAnswerPayload,
  invokePayload,
  refusedCallPayload,
} from '../../../src/adapters/websocket/link-payloads';

describe('§7 payloads', () => {
  it('round-trips hello, invoke and its answer through the wire names', () => {
    const hello = { controlUrl: 'http://127.0.0.1:9/' };
    expect(helloPayload(hello)).toEqual({ control_url: 'http://127.0.0.1:9/' });
    expect(decodeHello(helloPayload(hello))).toEqual({ ok: true, value: hello });
    // An agentctl without a control API says hello with nothing at all: it carries no secret.
    expect(helloPayload({})).toEqual({});
    expect(decodeHello({})).toEqual({ ok: true, value: {} });
    const request = { pluginId: 'a', localName: 'b', arguments: { x: 1 } };
    expect(invokePayload(request)).toEqual({ plugin_id: 'a', local_name: 'b', arguments: { x: 1 } });
    expect(decodeInvoke(invokePayload(request))).toEqual({ ok: true, value: request });
    const answer = { invocationId: 'i', text: 't', structuredContent: { n: 1 }, isError: true };
    expect(invokeAnswerPayload(answer)).toEqual({ invocation_id: 'i', text: 't', structured_content: { n: 1 }, is_error: true });
    expect(decodeInvokeAnswer(invokeAnswerPayload(answer))).toEqual({ ok: true, value: answer });
  });

  it("carries an answer's content blocks as `content` only when it has them", () => {
    const content: JsonObject[] = [
      { type: 'text', text: 't' },
      { type: 'image', data: 'AAAA', mimeType: 'image/png' },
    ];
    const answer = { invocationId: 'i', text: 't', structuredContent: null, isError: false, content };
    expect(invokeAnswerPayload(answer)).toEqual({ invocation_id: 'i', text: 't', structured_content: null, is_error: false, content });
    expect(decodeInvokeAnswer(invokeAnswerPayload(answer))).toEqual({ ok: true, value: answer });
    expect(invokeAnswerPayload({ invocationId: 'i', text: 't', structuredContent: null, isError: false })).not.toHaveProperty('content');
    expect(decodeInvokeAnswer({ invocation_id: 'i', text: 't', is_error: false, content: null })).toEqual({
      ok: true,
      value: { invocationId: 'i', text: 't', structuredContent: null, isError: false },
    });
    for (const bad of [{}, 'blocks', [1], [{ text: 'no type' }], [{ type: 3 }]]) {
      expect(decodeInvokeAnswer({ invocation_id: 'i', text: 't', is_error: false, content: bad })).toEqual({
        ok: false,
        reason: 'content must be a list of content blocks, each an object with a string type',
      });
    }
  });

  it('checks payload shapes without throwing', () => {
    expect(decodeHelloAnswer({ session: { task_id: 't', session_id: 's', workspace_id: 'w', surface: 'moon' } }).ok).toBe(false);
    expect(decodeHelloAnswer({ session: { task_id: 't', session_id: 's', workspace_id: 'w', surface: 'external' } }).ok).toBe(true);
    expect(decodeHello({ control_url: '' }).ok).toBe(false);
    expect(decodeHello({ control_url: 5 }).ok).toBe(false);
    expect(decodeHello('hello').ok).toBe(false);
    expect(decodeInvoke({ plugin_id: 'a', local_name: 'b' })).toEqual({ ok: true, value: { pluginId: 'a', localName: 'b', arguments: {} } });
    expect(decodeInvoke({ plugin_id: 'a', local_name: 'b', arguments: [] }).ok).toBe(false);
    expect(decodeInvokeAnswer({ invocation_id: 'i', text: 't', is_error: false })).toEqual({
      ok: true,
      value: { invocationId: 'i', text: 't', structuredContent: null, isError: false },
    });
    expect(decodeInvokeAnswer({ invocation_id: 'i', text: 't', is_error: 'no' }).ok).toBe(false);
  });

  it('carries the W3C trace context of an invoke as traceparent and tracestate, and drops one that is no short string', () => {
    const trace = { traceparent: '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01', tracestate: 'vendor=1' };
    const request = { pluginId: 'a', localName: 'b', arguments: {}, trace };
    expect(invokePayload(request)).toEqual({ plugin_id: 'a', local_name: 'b', arguments: {}, ...trace });
    expect(decodeInvoke(invokePayload(request))).toEqual({ ok: true, value: request });
    expect(decodeInvoke({ plugin_id: 'a', local_name: 'b', traceparent: trace.traceparent })).toEqual({
      ok: true,
      value: { pluginId: 'a', localName: 'b', arguments: {}, trace: { traceparent: trace.traceparent } },
    });
    for (const traceparent of [5, '', 'x'.repeat(513)]) {
      expect(decodeInvoke({ plugin_id: 'a', local_name: 'b', traceparent })).toEqual({ ok: true, value: { pluginId: 'a', localName: 'b', arguments: {} } });
    }
  });

  it('round-trips a refused call report, name capped, with no arguments, and refuses a bad one', () => {
    const report = { name: 'kandev_acme_tools_add_tag', code: 'INVALID_ARGUMENTS' as const, tool: { pluginId: 'acme.tools', localName: 'add_tag' } };
    expect(refusedCallPayload(report)).toEqual({ name: report.name, code: 'INVALID_ARGUMENTS', plugin_id: 'acme.tools', local_name: 'add_tag' });
    expect(decodeRefusedCall(refusedCallPayload(report))).toEqual({ ok: true, value: report });
    expect(refusedCallPayload({ name: 'n'.repeat(300), code: 'NOT_FOUND' })).toEqual({ name: 'n'.repeat(256), code: 'NOT_FOUND' });
    expect(decodeRefusedCall({ name: 'kandev_nope', code: 'NOT_FOUND' })).toEqual({ ok: true, value: { name: 'kandev_nope', code: 'NOT_FOUND' } });
    expect(decodeRefusedCall({ name: 'x', code: 'PLUGIN_BUSY' })).toEqual({ ok: false, reason: 'code must be NOT_FOUND or INVALID_ARGUMENTS' });
    expect(decodeRefusedCall({ name: 'n'.repeat(257), code: 'NOT_FOUND' }).ok).toBe(false);
    expect(decodeRefusedCall({ name: 'x', code: 'NOT_FOUND', plugin_id: 'a' }).ok).toBe(false);
    expect(decodeRefusedCall(null).ok).toBe(false);
  });

  it('round-trips mcp.ask_client and its answer; an error frame or an unknown answer is unsupported (an operator decides)', () => {
    const question = { tool: 'kandev_acme_db_drop', pluginId: 'acme.db', timeoutMs: 300000 };
    expect(askClientPayload('7', question)).toEqual({ request_id: '7', tool: 'kandev_acme_db_drop', plugin_id: 'acme.db', timeout_ms: 300000 });
    expect(decodeAskClient(askClientPayload('7', question))).toEqual({ ok: true, value: { requestId: '7', question } });
    expect(decodeAskClient({ request_id: '7', tool: 't', plugin_id: 'p', timeout_ms: 0 })).toEqual({
      ok: false,
      reason: expect.stringContaining('timeout_ms'),
    });
    expect(decodeAskClient({ tool: 't', plugin_id: 'p', timeout_ms: 1 })).toEqual({ ok: false, reason: expect.stringContaining('request_id') });
    for (const answer of ['approved', 'denied', 'timeout', 'unsupported'] as const) {
      expect(decodeClientAnswer({ id: 'b1', type: 'response', payload: clientAnswerPayload(answer) })).toBe(answer);
    }
    expect(decodeClientAnswer({ id: 'b1', type: 'response', payload: { answer: 'yes' } })).toBe('unsupported');
    expect(decodeClientAnswer({ id: 'b1', type: 'error', payload: { code: 'UNKNOWN_ACTION', message: 'unknown action' } })).toBe('unsupported');
  });
});
