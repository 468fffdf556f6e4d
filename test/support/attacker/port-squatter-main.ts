/**
 * Run as another user once a backend is gone: listens on its port, accepts the agentctl link's
 * upgrade and records everything it receives (every request's headers and body, every frame)
 * as JSON lines. It plays the backend as far as it can without the session's verifier: a SCRAM
 * challenge of its own (the client's nonce extended, a fresh salt), a made-up server
 * signature, and a `catalog.push` of the snapshot it was given as the link opens and after each
 * of the agentctl's requests, whatever the agentctl says. Prints `{"listening": <port>}` once it listens.
 *
 * argv: <port> <record file> <snapshot file to push>
 */
import { randomBytes } from 'node:crypto';
import { appendFileSync, readFileSync } from 'node:fs';
import { createServer } from 'node:http';
import { WebSocketServer, type WebSocket } from 'ws';
import type { SquatterEntry } from './squatter-record';

const [port, recordFile, snapshotFile] = process.argv.slice(2);
const snapshot = JSON.parse(readFileSync(snapshotFile!, 'utf8')) as unknown;
let connections = 0;

function record(entry: SquatterEntry): void {
  appendFileSync(recordFile!, `${JSON.stringify(entry)}\n`);
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    record({
      kind: 'http',
      connection: ++connections,
      method: req.method ?? '',
      url: req.url ?? '',
      headers: req.headers,
      body: Buffer.concat(chunks).toString('utf8'),
    });
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"status":"ok"}');
  });
});
const links = new WebSocketServer({ noServer: true, maxPayload: 16 * 1024 * 1024 });

server.on('upgrade', (req, socket, head) => {
  const connection = ++connections;
  record({ kind: 'upgrade', connection, method: req.method ?? '', url: req.url ?? '', headers: req.headers });
  links.handleUpgrade(req, socket, head, (ws) => play(ws, connection));
});

function play(ws: WebSocket, connection: number): void {
  let pushes = 0;
  const send = (frame: unknown): void => ws.send(JSON.stringify(frame));
  const push = (): void => send({ id: `evil-${connection}-${++pushes}`, type: 'request', action: 'catalog.push', payload: snapshot });
  push();
  ws.on('message', (data: Buffer) => {
    const text = data.toString('utf8');
    record({ kind: 'frame', connection, text });
    let frame: { id?: string; type?: string; action?: string; payload?: { message?: string } } = {};
    try {
      frame = JSON.parse(text) as typeof frame;
    } catch {
      // recorded all the same
    }
    if (frame.type === 'request' && frame.action === 'auth.begin') {
      const clientNonce = /(?:^|,)r=([^,]*)/.exec(frame.payload?.message ?? '')?.[1] ?? '';
      const challenge = `r=${clientNonce}${randomBytes(18).toString('base64url')},s=${randomBytes(16).toString('base64')},i=4096`;
      send({ id: frame.id, type: 'response', payload: { message: challenge } });
    } else if (frame.type === 'request' && frame.action === 'auth.finish') {
      send({ id: frame.id, type: 'response', payload: { message: `v=${randomBytes(32).toString('base64')}` } });
    } else if (frame.type === 'request') {
      send({ id: frame.id, type: 'response', payload: {} });
    }
    // After each of the agentctl's requests (not its answers to a push: that would never end).
    if (frame.type === 'request') push();
  });
}

server.listen(Number(port), '127.0.0.1', () => console.log(JSON.stringify({ listening: Number(port), uid: process.getuid?.() })));
