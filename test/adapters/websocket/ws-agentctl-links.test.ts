import type { WebSocket } from 'ws';
import { decodeFrame, responseFrame } from '../../../src/adapters/websocket/frames';
import { pushAnswerPayload } from '../../../src/adapters/websocket/link-payloads';
import { PUSH_SLICE, WsAgentctlLinks } from '../../../src/adapters/websocket/ws-agentctl-links';
import type { CatalogPush } from '../../../src/application/ports/catalog-publisher';

const GENERATION = '000000000001-aaaaaaaa';
const PUSH: CatalogPush = { snapshot: { generation: GENERATION, revision: 2, tools: [] } };

interface Sent {
  data: unknown;
  options: unknown;
}

/**
 * Links that record what is sent to them and answer each push in a later event-loop turn, as
 * an agentctl across a socket would.
 */
function fakeLinks(count: number): { links: WsAgentctlLinks; sent: Sent[]; ids: string[] } {
  const links = new WsAgentctlLinks();
  const sent: Sent[] = [];
  const ids = Array.from({ length: count }, (_, i) => `s${i}`);
  for (const sessionId of ids) {
    const ws = {
      OPEN: 1,
      readyState: 1,
      send(data: unknown, options: unknown) {
        sent.push({ data, options });
        const decoded = decodeFrame(data as Buffer);
        if (!decoded.ok) throw new Error(decoded.reason);
        const { id } = decoded.value;
        setTimeout(
          () => links.settle(ws as unknown as WebSocket, responseFrame(id, pushAnswerPayload({ outcome: 'applied', generation: GENERATION, revision: 2 }))),
          0,
        );
      },
    };
    links.add(sessionId, ws as unknown as WebSocket);
  }
  return { links, sent, ids };
}

describe('WsAgentctlLinks.push at scale', () => {
  it('hands every target the same encoded frame, a text frame encoded once', async () => {
    const { links, sent, ids } = fakeLinks(5);
    const answers = await links.push(ids, PUSH, 2000);
    expect([...answers.values()]).toEqual(ids.map(() => ({ outcome: 'applied', generation: GENERATION, revision: 2 })));
    expect(sent).toHaveLength(5);
    expect(Buffer.isBuffer(sent[0]!.data)).toBe(true);
    expect(new Set(sent.map((s) => s.data)).size).toBe(1);
    expect(sent.every((s) => (s.options as { binary?: boolean }).binary === false)).toBe(true);
  });

  it('writes to the links in slices, one event-loop turn each, so what arrived meanwhile is read between them', async () => {
    const { links, sent, ids } = fakeLinks(PUSH_SLICE * 2 + 1);
    let sentBeforeNextTurn = -1;
    setImmediate(() => (sentBeforeNextTurn = sent.length));
    const answers = await links.push(ids, PUSH, 5000);
    expect(sentBeforeNextTurn).toBe(PUSH_SLICE);
    expect(sent).toHaveLength(ids.length);
    expect([...answers.keys()]).toEqual(ids);
  });

  it('sends once to a session named twice and resolves without waiting for a second answer', async () => {
    const { links, sent } = fakeLinks(1);
    const answers = await links.push(['s0', 's0'], PUSH, 60_000);
    expect(sent).toHaveLength(1);
    expect(answers).toEqual(new Map([['s0', { outcome: 'applied', generation: GENERATION, revision: 2 }]]));
  });
});
