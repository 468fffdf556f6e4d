/**
 * Opens a connection to each target (`tcp:HOST:PORT` or `unix:PATH`) and closes it at once,
 * printing one JSON line per target: whether this user could reach the listener at all.
 */
import { connect } from 'node:net';

function open(target: string): Promise<{ ok: boolean; code?: string }> {
  return new Promise((resolve) => {
    const [kind, ...rest] = target.split(':');
    const socket = kind === 'unix' ? connect({ path: rest.join(':') }) : connect({ host: rest.slice(0, -1).join(':'), port: Number(rest[rest.length - 1]) });
    const timer = setTimeout(() => (socket.destroy(), resolve({ ok: false, code: 'ETIMEDOUT' })), 3000);
    socket.once('connect', () => (clearTimeout(timer), socket.destroy(), resolve({ ok: true })));
    socket.once('error', (error: NodeJS.ErrnoException) => (clearTimeout(timer), resolve({ ok: false, code: error.code ?? 'ERROR' })));
  });
}

async function main(): Promise<void> {
  for (const target of process.argv.slice(2)) {
    process.stdout.write(`${JSON.stringify({ target, ...(await open(target)), uid: process.getuid?.() })}\n`);
  }
}

void main();
