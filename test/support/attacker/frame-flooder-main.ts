/**
 * Run as another user against a live backend: opens `count` connections at once, each asking
 * for the agentctl WebSocket upgrade (with a browser `Origin` when one is given), and on each
 * upgraded one starts a text frame whose header declares `declared` bytes, then sends `send`
 * bytes of it and never finishes it, the way issue 25's attacker held the backend's memory.
 * Prints one JSON line per connection once the server closes it or `holdMs` passes:
 * `{"n", "status", "closedBy", "closedAfterMs", "sent"}` (`status` 0 when the server closed
 * before answering the upgrade; `closedAfterMs` counted from the frame header, null when no
 * frame was begun), then `{"done": true}`.
 *
 * argv: <port> <count> <declared bytes> <bytes to send> <hold ms> [origin]
 */
import { randomBytes } from 'node:crypto';
import { connect, type Socket } from 'node:net';

const [port, count, declared, toSend, holdMs, origin] = process.argv.slice(2);
const CHUNK = Buffer.alloc(64 * 1024, 0x61);

interface Outcome {
  n: number;
  status: number;
  /** Who ended the connection: the server, or this script once `holdMs` passed. */
  closedBy: 'server' | 'hold';
  closedAfterMs: number | null;
  sent: number;
}

/** A masked text frame's header (a client's frames are masked) declaring a payload of `length` bytes. */
function frameHeader(length: number): Buffer {
  const header = Buffer.alloc(14);
  header[0] = 0x81;
  header[1] = 0x80 | 127;
  header.writeBigUInt64BE(BigInt(length), 2);
  randomBytes(4).copy(header, 10);
  return header;
}

function flood(n: number): Promise<Outcome> {
  return new Promise((done) => {
    const socket: Socket = connect({ port: Number(port), host: '127.0.0.1' });
    let status = 0;
    let headerAt: number | undefined;
    let sent = 0;
    let answer = '';
    let finished = false;
    const finish = (closedBy: Outcome['closedBy']): void => {
      if (finished) return;
      finished = true;
      clearTimeout(hold);
      socket.destroy();
      done({ n, status, closedBy, closedAfterMs: headerAt === undefined ? null : Date.now() - headerAt, sent });
    };
    const hold = setTimeout(() => finish('hold'), Number(holdMs));
    const pump = (): void => {
      while (sent < Number(toSend) && !socket.destroyed) {
        const piece = CHUNK.subarray(0, Math.min(CHUNK.length, Number(toSend) - sent));
        sent += piece.length;
        if (!socket.write(piece)) return void socket.once('drain', pump);
      }
    };
    socket.on('connect', () => {
      const lines = [
        'GET /api/v1/agentctl/ws HTTP/1.1',
        `Host: 127.0.0.1:${port}`,
        'Upgrade: websocket',
        'Connection: Upgrade',
        `Sec-WebSocket-Key: ${randomBytes(16).toString('base64')}`,
        'Sec-WebSocket-Version: 13',
        ...(origin ? [`Origin: ${origin}`] : []),
      ];
      socket.write(`${lines.join('\r\n')}\r\n\r\n`);
    });
    socket.on('data', (chunk: Buffer) => {
      if (status !== 0) return;
      answer += chunk.toString('latin1');
      if (!answer.includes('\r\n\r\n')) return;
      status = Number(/^HTTP\/1\.1 (\d{3})/.exec(answer)?.[1] ?? -1);
      if (status !== 101) return;
      headerAt = Date.now();
      socket.write(frameHeader(Number(declared)));
      pump();
    });
    socket.on('error', () => undefined);
    socket.on('close', () => finish('server'));
  });
}

void Promise.all(Array.from({ length: Number(count) }, (_, n) => flood(n))).then((outcomes) => {
  for (const outcome of outcomes) console.log(JSON.stringify(outcome));
  console.log(JSON.stringify({ done: true }));
});
