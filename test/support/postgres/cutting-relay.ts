import { connect, createServer, type Server, type Socket } from 'node:net';

interface Pair {
  client: Socket;
  server: Socket;
}

/**
 * A TCP relay in front of a PostgreSQL unix socket that can cut every connection through it
 * the way a failover or a restarted proxy does: the server side goes at once, while the
 * client learns of it only when it next sends something (its socket is then closed unanswered).
 * Connections made after the cut pass through as before.
 */
export class CuttingRelay {
  private readonly pairs = new Set<Pair>();
  private readonly listener: Server;

  private constructor(socketPath: string) {
    this.listener = createServer((client) => {
      const pair = { client, server: connect(socketPath) };
      this.pairs.add(pair);
      client.pipe(pair.server).on('error', () => client.destroy());
      pair.server.pipe(client);
      client.on('error', () => pair.server.destroy());
    });
  }

  /** Listens on 127.0.0.1 at a free port and relays to `socketPath`. */
  static async start(socketPath: string): Promise<CuttingRelay> {
    const relay = new CuttingRelay(socketPath);
    await new Promise<void>((done) => relay.listener.listen(0, '127.0.0.1', done));
    return relay;
  }

  get port(): number {
    return (this.listener.address() as { port: number }).port;
  }

  /** Cuts every open connection: the server side now, each client side on its next write. */
  cut(): void {
    for (const pair of this.pairs) {
      pair.client.unpipe(pair.server);
      pair.server.unpipe(pair.client);
      pair.server.destroy();
      pair.client.once('data', () => pair.client.destroy());
      // Unpiping paused it, and a paused socket would never see the client's next write.
      pair.client.resume();
    }
  }

  /** Closes every connection and the listener. */
  async stop(): Promise<void> {
    for (const { client, server } of this.pairs) {
      client.destroy();
      server.destroy();
    }
    await new Promise<void>((done) => this.listener.close(() => done()));
  }
}
