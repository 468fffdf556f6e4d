import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { ConnectionGate } from '../../../src/adapters/shared/connection-gate';

/** A listener whose requests with `x-auth: yes` count their connection as authenticated; `x-slow: yes` is answered after 1 s. */
async function gated(gate: ConnectionGate): Promise<{ server: Server; port: number }> {
  const server = createServer((req, res) => {
    if (req.headers['x-auth'] === 'yes' && !gate.promote(req.socket)) return void res.writeHead(503).end();
    if (req.headers['x-slow'] === 'yes') return void setTimeout(() => res.writeHead(200).end('ok'), 1000);
    res.writeHead(200).end('ok');
  });
  gate.attach(server);
  await new Promise<void>((done) => server.listen(0, '127.0.0.1', done));
  return { server, port: (server.address() as AddressInfo).port };
}

function open(port: number, host = '127.0.0.1'): Promise<Socket> {
  return new Promise((done, fail) => {
    const socket = connect({ port, host: '127.0.0.1', localAddress: host }, () => done(socket));
    socket.once('error', fail);
  });
}

const closed = (socket: Socket): Promise<void> => new Promise((done) => (socket.destroyed ? done() : socket.once('close', () => done())));

/** Sends one keep-alive request and resolves with the status line. */
function ask(socket: Socket, auth: boolean, slow = false): Promise<string> {
  return new Promise((done) => {
    socket.once('data', (chunk: Buffer) => done(chunk.toString('utf8').split('\r\n')[0]!));
    socket.write(`GET / HTTP/1.1\r\nHost: x\r\n${auth ? 'x-auth: yes\r\n' : ''}${slow ? 'x-slow: yes\r\n' : ''}\r\n`);
  });
}

describe('ConnectionGate', () => {
  const sockets: Socket[] = [];
  let server: Server | undefined;
  afterEach(async () => {
    for (const socket of sockets.splice(0)) socket.destroy();
    server?.closeAllConnections();
    await new Promise((done) => server?.close(done));
  });

  it("at the per-peer cap closes that peer's oldest idle connection to let a new one in, and counts an authenticated one apart", async () => {
    const gate = new ConnectionGate({ unauthenticated: 10, unauthenticatedPerPeer: 2, authenticated: 1, unauthenticatedTimeoutMs: 5000 });
    const listening = await gated(gate);
    server = listening.server;
    const first = await open(listening.port);
    const second = await open(listening.port);
    // Another address of the loopback is another peer: its connection is not the one closed.
    const other = await open(listening.port, '127.0.0.2');
    sockets.push(first, second, other);
    const third = await open(listening.port);
    sockets.push(third);
    await closed(first);
    expect(await ask(third, false)).toBe('HTTP/1.1 200 OK');
    expect(await ask(other, false)).toBe('HTTP/1.1 200 OK');
    expect(second.destroyed).toBe(false);
    expect(gate.counts()).toMatchObject({ unauthenticated: 3, authenticated: 0, refused: 0, evicted: 1 });

    // Once authenticated, a connection leaves room for another unauthenticated one of its peer.
    expect(await ask(second, true)).toBe('HTTP/1.1 200 OK');
    const fourth = await open(listening.port);
    sockets.push(fourth);
    expect(await ask(fourth, false)).toBe('HTTP/1.1 200 OK');
    expect(gate.counts()).toMatchObject({ unauthenticated: 3, authenticated: 1, evicted: 1 });
    // The authenticated cap (1) is full: a second is refused (503), and stays unauthenticated.
    expect(await ask(fourth, true)).toBe('HTTP/1.1 503 Service Unavailable');
    expect(gate.counts()).toMatchObject({ unauthenticated: 3, authenticated: 1 });
  });

  it('closes a new connection at once only when every unauthenticated one at the cap is being answered', async () => {
    const gate = new ConnectionGate({ unauthenticated: 2, unauthenticatedPerPeer: 2, authenticated: 10, unauthenticatedTimeoutMs: 5000 });
    const listening = await gated(gate);
    server = listening.server;
    const busy = [await open(listening.port), await open(listening.port, '127.0.0.2')];
    sockets.push(...busy);
    const answers = busy.map((socket) => ask(socket, false, true));
    await new Promise((done) => setTimeout(done, 200));
    const refused = await open(listening.port, '127.0.0.3');
    sockets.push(refused);
    await closed(refused);
    expect(await Promise.all(answers)).toEqual(['HTTP/1.1 200 OK', 'HTTP/1.1 200 OK']);
    expect(gate.counts()).toMatchObject({ unauthenticated: 2, refused: 1, evicted: 0 });
    // Answered, they are idle again: the oldest makes room for the next one, whoever its peer.
    const next = await open(listening.port, '127.0.0.3');
    sockets.push(next);
    await closed(busy[0]!);
    expect(await ask(next, false)).toBe('HTTP/1.1 200 OK');
    expect(gate.counts()).toMatchObject({ unauthenticated: 2, refused: 1, evicted: 1 });
  });

  it('closes an unauthenticated connection that stays idle, or sends its headers too slowly, and not an authenticated one', async () => {
    const gate = new ConnectionGate({ unauthenticated: 10, unauthenticatedPerPeer: 10, authenticated: 10, unauthenticatedTimeoutMs: 300 });
    const listening = await gated(gate);
    server = listening.server;
    const idle = await open(listening.port);
    const slow = await open(listening.port);
    const authenticated = await open(listening.port);
    sockets.push(idle, slow, authenticated);
    expect(await ask(authenticated, true)).toBe('HTTP/1.1 200 OK');
    const dribble = setInterval(() => slow.write('X'), 50);
    slow.write('GET / HTTP/1.1\r\nHost: x\r\nX-Slow: ');
    const started = Date.now();
    await Promise.all([closed(idle), closed(slow)]);
    clearInterval(dribble);
    expect(Date.now() - started).toBeLessThan(3000);
    await new Promise((done) => setTimeout(done, 500));
    expect(authenticated.destroyed).toBe(false);
    expect(await ask(authenticated, false)).toBe('HTTP/1.1 200 OK');
  });
});
