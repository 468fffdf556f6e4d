import {
  MAX_FRAME_BYTES,
  cancelFrame,
  decodeFrame,
  decodeHelloResponse,
  decodeInvokeRequest,
  decodeInvokeResponse,
  encodeFrame,
  errorFrame,
  invocationErrorFromWire,
  requestFrame,
  wireErrorOf,
} from '../../src/application/agentctl-protocol';
import { InvocationError } from '../../src/domain/errors';

describe('agentctl protocol codec', () => {
  it('round-trips every frame type', () => {
    for (const frame of [
      requestFrame('1', 'mcp.invoke_plugin_tool', { plugin_id: 'a', local_name: 'b', arguments: {} }),
      { id: '1', type: 'response' as const, payload: { ok: true } },
      errorFrame('2', { code: 'TIMEOUT', message: '[TOOL_TIMEOUT] 30 s' }),
      cancelFrame('3'),
    ]) {
      expect(decodeFrame(encodeFrame(frame))).toEqual({ ok: true, value: frame });
    }
  });

  it.each([
    ['not JSON', '{"id":'],
    ['not an object', '[1]'],
    ['no id', '{"type":"request","action":"x"}'],
    ['empty id', '{"id":"","type":"cancel"}'],
    ['unknown type', '{"id":"1","type":"push"}'],
    ['request without action', '{"id":"1","type":"request"}'],
    ['non-text action', '{"id":"1","type":"request","action":5}'],
  ])('refuses a frame that is %s, without throwing', (_what, text) => {
    expect(decodeFrame(text)).toMatchObject({ ok: false, reason: expect.any(String) });
  });

  it('refuses a frame over 8 MiB', () => {
    const big = encodeFrame({ id: '1', type: 'response', payload: 'x'.repeat(MAX_FRAME_BYTES) });
    expect(decodeFrame(Buffer.from(big))).toMatchObject({ ok: false, reason: expect.stringContaining('exceeds') });
  });

  it('carries a §6 code through the wire and back', () => {
    const sent = wireErrorOf(new InvocationError('PLUGIN_BUSY', 'UNAVAILABLE', 'acme has 32 calls in flight'));
    expect(sent).toEqual({ code: 'UNAVAILABLE', message: '[PLUGIN_BUSY] acme has 32 calls in flight' });
    const back = invocationErrorFromWire(sent);
    expect(back.agentText).toBe('[PLUGIN_BUSY] acme has 32 calls in flight');
    expect(back.wire).toBe('UNAVAILABLE');
  });

  it('gives an unprefixed or malformed error a stable code anyway', () => {
    expect(invocationErrorFromWire({ code: 'TIMEOUT', message: 'too slow' }).agentText).toBe('[TOOL_TIMEOUT] too slow');
    expect(invocationErrorFromWire({ code: 'FORBIDDEN', message: '[NOT_A_CODE] x' }).code).toBe('SURFACE_NOT_ALLOWED');
    expect(invocationErrorFromWire('garbage').code).toBe('BACKEND_UNAVAILABLE');
  });

  it('checks payload shapes', () => {
    expect(decodeHelloResponse({ session: { task_id: 't', session_id: 's', workspace_id: 'w', surface: 'moon' } }).ok).toBe(false);
    expect(decodeHelloResponse({ session: { task_id: 't', session_id: 's', workspace_id: 'w', surface: 'external' } }).ok).toBe(true);
    expect(decodeInvokeRequest({ plugin_id: 'a', local_name: 'b' })).toEqual({ ok: true, value: { plugin_id: 'a', local_name: 'b', arguments: {} } });
    expect(decodeInvokeRequest({ plugin_id: 'a', local_name: 'b', arguments: [] }).ok).toBe(false);
    expect(decodeInvokeResponse({ invocation_id: 'i', text: 't', is_error: false })).toEqual({
      ok: true,
      value: { invocation_id: 'i', text: 't', structured_content: null, is_error: false },
    });
    expect(decodeInvokeResponse({ invocation_id: 'i', text: 't', is_error: 'no' }).ok).toBe(false);
  });
});
