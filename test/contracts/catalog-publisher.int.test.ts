import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { InMemoryCatalogPublisher } from '../../src/adapters/memory/in-memory-catalog-publisher';
import { CountingCatalogPublisher } from '../../src/adapters/metrics/counting-catalog-publisher';
import { ACTIONS, CLOSE_REPLACED, decodeFrame, encodeFrame, responseFrame } from '../../src/adapters/websocket/frames';
import { pushAnswerPayload } from '../../src/adapters/websocket/link-payloads';
import { WsAgentctlLinks } from '../../src/adapters/websocket/ws-agentctl-links';
import type { CatalogPush } from '../../src/application/ports/catalog-publisher';
import type { CatalogTool } from '../../src/domain/catalog';
import {
  applies,
  describeCatalogPublisherContract,
  type AgentctlAnswer,
  type CatalogPublisherFixture,
  type LinkedAgentctl,
} from './catalog-publisher.contract';

async function until(condition: () => boolean, what: string, timeoutMs = 3000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}

/** Fake agentctls linked straight to an InMemoryCatalogPublisher. */
function inMemory(): CatalogPublisherFixture & { inner: InMemoryCatalogPublisher } {
  const publisher = new InMemoryCatalogPublisher();
  const current = new Map<string, object>();
  return {
    publisher,
    inner: publisher,
    async link(sessionId, answer) {
      const me = {};
      current.set(sessionId, me);
      const received: CatalogPush[] = [];
      const drop = (): void => {
        if (current.get(sessionId) !== me) return;
        current.delete(sessionId);
        publisher.unlink(sessionId);
      };
      publisher.link(sessionId);
      publisher.handle(sessionId, async (_id, push) => {
        received.push(push);
        const said = answer(push);
        if (said === 'refuse') throw new Error('agentctl refused the push');
        if (said === 'drop') drop();
        if (said === 'silent' || said === 'drop') return new Promise(() => undefined);
        return said;
      });
      return { received, drop: async () => drop() };
    },
    cleanup: async () => undefined,
  };
}

/** A §7 `catalog.push` payload as the agentctl reads it, back as the push it was built from. */
function pushOf(payload: Record<string, unknown>): CatalogPush {
  if ('base_revision' in payload) {
    const { generation, revision, base_revision, upsert, remove } = payload as {
      generation: string;
      revision: number;
      base_revision: number;
      upsert: CatalogTool[];
      remove: string[];
    };
    return { delta: { generation, revision, baseRevision: base_revision, upsert, remove } };
  }
  return { snapshot: payload as never };
}

/**
 * WsAgentctlLinks over real WebSockets on 127.0.0.1: the server side does what the backend's
 * endpoint does with a link once it is authenticated (add, settle each answer, remove on
 * close, close a replaced link), and each fake agentctl is a real `ws` client answering
 * `catalog.push` request frames.
 */
async function websocket(): Promise<CatalogPublisherFixture> {
  const links = new WsAgentctlLinks();
  const server = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => server.once('listening', () => resolve()));
  const port = (server.address() as AddressInfo).port;
  const clients = new Set<WebSocket>();
  // Which client connections the server side has taken in, and which of them it saw close.
  const accepted = new Set<string>();
  const closed = new Set<string>();
  let nextClient = 0;
  server.on('connection', (ws, request) => {
    const query = new URL(request.url ?? '/', 'http://127.0.0.1').searchParams;
    const sessionId = query.get('session')!;
    const client = query.get('client')!;
    links.add(sessionId, ws)?.close(CLOSE_REPLACED, 'replaced by a newer link');
    accepted.add(client);
    ws.on('message', (data) => {
      const decoded = decodeFrame(data as Buffer);
      if (decoded.ok && decoded.value.type !== 'request') links.settle(ws, decoded.value);
    });
    ws.on('close', () => {
      links.remove(sessionId, ws);
      closed.add(client);
    });
  });

  async function link(sessionId: string, answer: (push: CatalogPush) => AgentctlAnswer): Promise<LinkedAgentctl> {
    const id = String(++nextClient);
    const client = new WebSocket(`ws://127.0.0.1:${port}/?session=${encodeURIComponent(sessionId)}&client=${id}`);
    clients.add(client);
    const received: CatalogPush[] = [];
    client.on('message', (data) => {
      const decoded = decodeFrame(data as Buffer);
      if (!decoded.ok || decoded.value.action !== ACTIONS.catalogPush) return;
      const frame = decoded.value;
      const push = pushOf(frame.payload as Record<string, unknown>);
      received.push(push);
      const said = answer(push);
      if (said === 'silent') return;
      if (said === 'drop') return client.terminate();
      if (said === 'refuse')
        return client.send(encodeFrame({ id: frame.id, type: 'error', payload: { code: 'BAD_REQUEST', message: 'the push is malformed' } }));
      client.send(encodeFrame(responseFrame(frame.id, pushAnswerPayload(said))));
    });
    await new Promise<void>((resolve, reject) => {
      client.once('open', () => resolve());
      client.once('error', reject);
    });
    await until(() => accepted.has(id) && links.isLinked(sessionId), `${sessionId} to link`);
    return {
      received,
      drop: async () => {
        client.close();
        await until(() => closed.has(id), `${sessionId} to drop`);
      },
    };
  }

  return {
    publisher: links,
    link,
    cleanup: async () => {
      for (const client of clients) client.terminate();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describeCatalogPublisherContract([
  ['InMemoryCatalogPublisher', inMemory],
  ['WsAgentctlLinks (real WebSockets on 127.0.0.1)', websocket],
  [
    'CountingCatalogPublisher over InMemoryCatalogPublisher',
    () => {
      const inner = inMemory();
      return { ...inner, publisher: new CountingCatalogPublisher(inner.publisher, () => undefined) };
    },
  ],
]);

describe('CountingCatalogPublisher', () => {
  it('counts each session a push failed for, once, and nothing for answers', async () => {
    const inner = inMemory();
    let failures = 0;
    const counting = new CountingCatalogPublisher(inner.publisher, () => (failures += 1));
    await inner.link('ok', applies);
    await inner.link('refuses', () => 'refuse');
    await counting.push(['ok', 'refuses', 'never-linked'], { snapshot: { generation: '000000000001-aaaaaaaa', revision: 1, tools: [] } }, 500);
    expect(failures).toBe(2);
  });
});
