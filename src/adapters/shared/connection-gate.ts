import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

/** docs/operations.md §1: what the backend's listener lets in before and after authentication. */
export interface ConnectionLimits {
  /** Connections that have not authenticated yet, all peers together (default 256). */
  unauthenticated: number;
  /** The same, from one peer address (default 64; every local process is the loopback peer). */
  unauthenticatedPerPeer: number;
  /** Authenticated connections: API clients and agentctl links (default 20000, `--max-connections`). */
  authenticated: number;
  /** An unauthenticated connection idle this long, or a request on one not answered this long, is closed (default 10 s). */
  unauthenticatedTimeoutMs: number;
}

export const DEFAULT_CONNECTION_LIMITS: ConnectionLimits = {
  unauthenticated: 256,
  unauthenticatedPerPeer: 64,
  authenticated: 20_000,
  unauthenticatedTimeoutMs: 10_000,
};

interface Entry {
  socket: Socket;
  peer: string;
  authenticated: boolean;
  /** The deadline of what the connection is doing now: sending a request's headers, or waiting for its answer. */
  deadline?: NodeJS.Timeout;
}

/**
 * Counts the listener's TCP connections as unauthenticated until a request on one carries a
 * valid credential or an agentctl link on one completes its proof (`promote`). Unauthenticated
 * connections are capped in total and per peer address and get short timeouts, so that no
 * user of the machine can hold the backend's memory or file descriptors without a credential;
 * one over a cap is closed at once, before a byte of it is read. Authenticated ones are bounded
 * by their own, much larger, cap. Connections are named by their peer's address and port, which
 * a TLS socket shares with the TCP socket under it.
 */
export class ConnectionGate {
  private readonly entries = new Map<string, Entry>();
  private readonly perPeer = new Map<string, number>();
  private unauthenticatedCount = 0;
  private authenticatedCount = 0;
  private refusedCount = 0;

  constructor(readonly limits: ConnectionLimits = DEFAULT_CONNECTION_LIMITS) {}

  /** Admits (or closes) every new connection of `server`, and bounds its header and request times. */
  attach(server: Server): void {
    server.headersTimeout = Math.min(server.headersTimeout, this.limits.unauthenticatedTimeoutMs);
    server.on('connection', (socket: Socket) => this.admit(socket));
    server.prependListener('request', (req: IncomingMessage, res: ServerResponse) => this.timeRequest(req, res));
  }

  /**
   * Counts the connection `socket` (or the TLS socket over it) belongs to as authenticated.
   * False when the authenticated cap is reached: the caller refuses the request or link.
   */
  promote(socket: Socket): boolean {
    const entry = this.entries.get(keyOf(socket));
    if (!entry) return true;
    if (entry.authenticated) return true;
    if (this.authenticatedCount >= this.limits.authenticated) return false;
    entry.authenticated = true;
    this.unauthenticatedCount -= 1;
    this.release(entry.peer);
    this.authenticatedCount += 1;
    clearTimeout(entry.deadline);
    entry.socket.setTimeout(0);
    return true;
  }

  /** For metrics and tests: connections counted now, and those closed at a cap. */
  counts(): { unauthenticated: number; authenticated: number; refused: number } {
    return { unauthenticated: this.unauthenticatedCount, authenticated: this.authenticatedCount, refused: this.refusedCount };
  }

  private admit(socket: Socket): void {
    const peer = socket.remoteAddress ?? '?';
    const fromPeer = this.perPeer.get(peer) ?? 0;
    if (this.unauthenticatedCount >= this.limits.unauthenticated || fromPeer >= this.limits.unauthenticatedPerPeer) {
      this.refusedCount += 1;
      socket.destroy();
      return;
    }
    const key = keyOf(socket);
    const entry: Entry = { socket, peer, authenticated: false };
    this.entries.set(key, entry);
    this.unauthenticatedCount += 1;
    this.perPeer.set(peer, fromPeer + 1);
    socket.setTimeout(this.limits.unauthenticatedTimeoutMs, () => {
      if (!entry.authenticated) socket.destroy();
    });
    // Its first request's headers must be in within the time, however slowly the bytes come.
    this.startDeadline(entry);
    socket.once('close', () => {
      clearTimeout(entry.deadline);
      this.entries.delete(key);
      if (entry.authenticated) this.authenticatedCount -= 1;
      else {
        this.unauthenticatedCount -= 1;
        this.release(peer);
      }
    });
  }

  /**
   * A request on an unauthenticated connection must be answered in time (its body too, however
   * slowly it comes), and the next one's headers must follow in time again.
   */
  private timeRequest(req: IncomingMessage, res: ServerResponse): void {
    const entry = this.entries.get(keyOf(req.socket));
    if (!entry || entry.authenticated) return;
    this.startDeadline(entry);
    res.once('finish', () => {
      if (!entry.authenticated && !entry.socket.destroyed) this.startDeadline(entry);
    });
  }

  private startDeadline(entry: Entry): void {
    clearTimeout(entry.deadline);
    entry.deadline = setTimeout(() => {
      if (!entry.authenticated) entry.socket.destroy();
    }, this.limits.unauthenticatedTimeoutMs);
    entry.deadline.unref();
  }

  private release(peer: string): void {
    const left = (this.perPeer.get(peer) ?? 1) - 1;
    if (left <= 0) this.perPeer.delete(peer);
    else this.perPeer.set(peer, left);
  }
}

function keyOf(socket: Socket): string {
  return `${socket.remoteAddress ?? '?'}|${socket.remotePort ?? 0}`;
}
