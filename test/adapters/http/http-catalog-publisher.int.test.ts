import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { HttpCatalogPublisher } from '../../../src/adapters/http/http-catalog-publisher';
import type { CatalogSnapshot } from '../../../src/domain/catalog';

const SNAPSHOT: CatalogSnapshot = { generation: '000000000001-aaaaaaaa', revision: 3, tools: [] };

describe('HttpCatalogPublisher', () => {
  let server: Server;
  let url: string;
  let handle: (req: IncomingMessage, body: string, res: ServerResponse) => void;
  const publisher = new HttpCatalogPublisher();

  beforeAll(async () => {
    server = createServer((req, res) => {
      let body = '';
      req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
      req.on('end', () => handle(req, body, res));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('PUTs the snapshot with the control token and answers the outcome, on kept-alive connections', async () => {
    const seen: Array<{ method?: string; path?: string; auth?: string; body: unknown; socket: unknown }> = [];
    handle = (req, body, res) => {
      seen.push({ method: req.method, path: req.url, auth: req.headers.authorization, body: JSON.parse(body), socket: req.socket });
      res.setHeader('content-type', 'application/json');
      res.end(JSON.stringify({ outcome: 'applied', generation: SNAPSHOT.generation, revision: 3 }));
    };
    const target = { sessionId: 's', controlUrl: url, controlToken: 'secret' };
    expect(await publisher.push(target, SNAPSHOT, 2000)).toBe('applied');
    expect(await publisher.push(target, SNAPSHOT, 2000)).toBe('applied');
    expect(seen.map(({ socket: _socket, ...rest }) => rest)).toEqual([
      { method: 'PUT', path: '/api/v1/mcp/plugin-tools', auth: 'Bearer secret', body: SNAPSHOT },
      { method: 'PUT', path: '/api/v1/mcp/plugin-tools', auth: 'Bearer secret', body: SNAPSHOT },
    ]);
    expect(seen[1]!.socket).toBe(seen[0]!.socket);
  });

  it('rejects a refusal and an answer without an outcome', async () => {
    const target = { sessionId: 's', controlUrl: url, controlToken: 'secret' };
    handle = (_req, _body, res) => res.writeHead(400).end('{"error":{}}');
    await expect(publisher.push(target, SNAPSHOT, 2000)).rejects.toThrow('HTTP 400');
    handle = (_req, _body, res) => res.end('{"outcome":"maybe"}');
    await expect(publisher.push(target, SNAPSHOT, 2000)).rejects.toThrow('without an outcome');
  });

  it('gives up on an agentctl that does not answer within the deadline', async () => {
    handle = () => undefined;
    const started = Date.now();
    await expect(publisher.push({ sessionId: 's', controlUrl: url, controlToken: 'secret' }, SNAPSHOT, 200)).rejects.toThrow('within 200 ms');
    expect(Date.now() - started).toBeLessThan(1500);
  });
});
