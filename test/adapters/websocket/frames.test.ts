import { ACTIONS, MAX_FRAME_BYTES, cancelFrame, decodeFrame, encodeFrame, requestFrame } from '../../../src/adapters/websocket/frames';
import { errorFrame } from '../../../src/adapters/websocket/wire-errors';
import { InvocationError } from '../../../src/domain/errors';
import { entryText } from '../../../src/domain/snapshot-text';

describe('§7 frames', () => {
  it('round-trips every frame type', () => {
    for (const frame of [
      requestFrame('1', 'mcp.invoke_plugin_tool', { plugin_id: 'a', local_name: 'b', arguments: {} }),
      { id: '1', type: 'response' as const, payload: { ok: true } },
      errorFrame('2', new InvocationError('TOOL_TIMEOUT', '30 s')),
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

  it('keeps the text of each tool of a snapshot payload, for the swap to compare as text', () => {
    const tools = [
      { exposed_name: 'a', input_schema: { type: 'object' } },
      { exposed_name: 'b', input_schema: { type: 'array' } },
    ];
    const decoded = decodeFrame(encodeFrame(requestFrame('1', ACTIONS.catalogPush, { generation: 'g', revision: 1, tools })));
    if (!decoded.ok) throw new Error(decoded.reason);
    const payload = decoded.value.payload as { tools: object[] };
    expect(payload.tools.map((entry) => entryText(entry))).toEqual(tools.map((tool) => JSON.stringify(tool)));
  });
});
