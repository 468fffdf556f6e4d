import { createServer } from 'node:net';
import { randomInt } from 'node:crypto';

/**
 * A port that was free on 127.0.0.1 a moment ago. PostgreSQL cannot take port 0, so the
 * caller binds it itself and picks another on a clash (something may take it in between).
 * Chosen at random from a range outside the usual ephemeral ports, so two test files starting
 * at once rarely pick the same one.
 */
export async function probablyFreePort(): Promise<number> {
  for (;;) {
    const port = randomInt(20_000, 32_000);
    if (await bindable(port)) return port;
  }
}

function bindable(port: number): Promise<boolean> {
  return new Promise((done) => {
    const server = createServer();
    server.once('error', () => done(false));
    server.listen({ port, host: '127.0.0.1', exclusive: true }, () => server.close(() => done(true)));
  });
}
