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
  /** Still counted: false once it was closed to make room (its count already given back). */
  counted: boolean;
  /** A request of it is being answered. */
  busy: boolean;
  /** The deadline of what the connection is doing now: sending a request's headers, or waiting for its answer. */
  deadline?: NodeJS.Timeout;
}

/**
 * Counts the listener's TCP connections as unauthenticated until a request on one carries a
 * valid credential or an agentctl link on one completes its proof (`promote`). Unauthenticated
 * connections are capped in total and per peer address and get short timeouts, so that no
 * user of the machine can hold the backend's memory or file descriptors without a credential.
 * At a cap, the oldest unauthenticated connection with no request being answered (of that peer,
 * for the per-peer cap) is closed to make room for the new one, so that idle connections held
 * by another local user (every local process is the same loopback peer, or picks its own
 * 127.x address) never lock the real clients out; only when every one is busy is the new one
 * closed at once, before a byte of it is read. Authenticated ones are bounded by their own,
 * much larger, cap. Connections are named by their peer's address and port, which a TLS
 * socket shares with the TCP socket under it.
 */
export class ConnectionGate {
  private readonly entries = new Map<string, Entry>();
  /** The unauthenticated ones, oldest first. */
  private readonly waiting = new Map<string, Entry>();
  private readonly perPeer = new Map<string, number>();
  private unauthenticatedCount = 0;
  private authenticatedCount = 0;
  private refusedCount = 0;
  private evictedCount = 0;

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
    this.waiting.delete(keyOf(socket));
    this.unauthenticatedCount -= 1;
    this.release(entry.peer);
    this.authenticatedCount += 1;
    clearTimeout(entry.deadline);
    entry.socket.setTimeout(0);
    return true;
  }

  /**
   * For metrics and tests: connections counted now, new ones closed at a cap (`refused`), and
   * idle ones closed to make room for a new one (`evicted`).
   */
  counts(): { unauthenticated: number; authenticated: number; refused: number; evicted: number } {
    return {
      unauthenticated: this.unauthenticatedCount,
      authenticated: this.authenticatedCount,
      refused: this.refusedCount,
      evicted: this.evictedCount,
    };
  }

  private admit(socket: Socket): void {
    const peer = socket.remoteAddress ?? '?';
    if ((this.perPeer.get(peer) ?? 0) >= this.limits.unauthenticatedPerPeer && !this.evictIdle(peer)) return this.refuse(socket);
    if (this.unauthenticatedCount >= this.limits.unauthenticated && !this.evictIdle()) return this.refuse(socket);
    const key = keyOf(socket);
    const entry: Entry = { socket, peer, authenticated: false, counted: true, busy: false };
    this.entries.set(key, entry);
    this.waiting.set(key, entry);
    this.unauthenticatedCount += 1;
    this.perPeer.set(peer, (this.perPeer.get(peer) ?? 0) + 1);
    socket.setTimeout(this.limits.unauthenticatedTimeoutMs, () => {
      if (!entry.authenticated) socket.destroy();
    });
    // Its first request's headers must be in within the time, however slowly the bytes come.
    this.startDeadline(entry);
    socket.once('close', () => this.forget(key, entry));
  }

  private refuse(socket: Socket): void {
    this.refusedCount += 1;
    socket.destroy();
  }

  /**
   * Closes the oldest unauthenticated connection (of `peer`, when given) that has no request
   * being answered, giving its count back at once. False when there is none.
   */
  private evictIdle(peer?: string): boolean {
    for (const [key, entry] of this.waiting) {
      if (entry.busy || (peer !== undefined && entry.peer !== peer)) continue;
      this.forget(key, entry);
      this.evictedCount += 1;
      entry.socket.destroy();
      return true;
    }
    return false;
  }

  /** Gives the connection's count back, once (at its close, or earlier when it is evicted). */
  private forget(key: string, entry: Entry): void {
    clearTimeout(entry.deadline);
    if (!entry.counted) return;
    entry.counted = false;
    if (this.entries.get(key) === entry) this.entries.delete(key);
    if (this.waiting.get(key) === entry) this.waiting.delete(key);
    if (entry.authenticated) this.authenticatedCount -= 1;
    else {
      this.unauthenticatedCount -= 1;
      this.release(entry.peer);
    }
  }

  /**
   * A request on an unauthenticated connection must be answered in time (its body too, however
   * slowly it comes), and the next one's headers must follow in time again.
   */
  private timeRequest(req: IncomingMessage, res: ServerResponse): void {
    const entry = this.entries.get(keyOf(req.socket));
    if (!entry || entry.authenticated) return;
    entry.busy = true;
    this.startDeadline(entry);
    res.once('close', () => {
      entry.busy = false;
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
