import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

/**
 * A small issue tracker on 127.0.0.1 (port 0) with the HTTP API the tracker example speaks:
 * every request must carry `Authorization: Bearer <token>` with a token it accepts; the tokens
 * it was shown are kept, so a test can see which credential the plugin presented.
 */
export class FakeTracker {
  readonly presented: string[] = [];
  private readonly issues = new Map<string, { id: string; title: string; url: string; status: string }>();
  private readonly server: Server;
  private url = '';

  private readonly tokens: Set<string>;

  constructor(token: string) {
    this.tokens = new Set([token]);
    this.server = createServer((req, res) => void this.handle(req, res));
  }

  get baseUrl(): string {
    return this.url;
  }

  /** Accepts `token` from now on (and refuses the old one). */
  rotate(token: string): void {
    this.tokens.clear();
    this.tokens.add(token);
  }

  /** Accepts `token` from now on too (one API token per workspace, say). */
  accept(token: string): void {
    this.tokens.add(token);
  }

  async start(): Promise<this> {
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}/api`;
    return this;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const presented = (req.headers.authorization ?? '').replace(/^Bearer /, '');
    this.presented.push(presented);
    const body = await new Promise<string>((resolve) => {
      let text = '';
      req.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
      req.on('end', () => resolve(text));
    });
    const send = (status: number, value: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
    };
    if (!this.tokens.has(presented)) return send(401, { error: 'bad token' });
    const path = (req.url ?? '').replace(/^\/api/, '');
    if (req.method === 'GET' && path === '/whoami') return send(200, { name: 'toolport-bot' });
    const create = /^\/projects\/([^/]+)\/issues$/.exec(path);
    if (req.method === 'POST' && create) {
      const id = `${decodeURIComponent(create[1]!)}-${this.issues.size + 1}`;
      const issue = { id, title: String((JSON.parse(body) as { title?: unknown }).title), url: `${this.url}/issues/${id}`, status: 'open' };
      this.issues.set(id, issue);
      return send(201, issue);
    }
    const read = /^\/issues\/([^/]+)$/.exec(path);
    if (req.method === 'GET' && read && this.issues.has(decodeURIComponent(read[1]!))) return send(200, this.issues.get(decodeURIComponent(read[1]!)));
    return send(404, { error: 'not found' });
  }
}
