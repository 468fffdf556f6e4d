import { timingSafeEqual } from 'node:crypto';

/**
 * DNS-rebinding and cross-site defences for a loopback server: the Host must name this
 * server (127.0.0.1, localhost, [::1] or the bound host, with the bound port), and an Origin,
 * when present, must be one of those or explicitly allowed.
 */
export class LoopbackGuard {
  private hosts = new Set<string>();
  private origins = new Set<string>();

  constructor(
    private readonly bindHost: string,
    private readonly extraOrigins: readonly string[],
  ) {}

  /** Call once the port is known. */
  setPort(port: number): void {
    const names = new Set(['127.0.0.1', 'localhost', '[::1]', this.bindHost.includes(':') ? `[${this.bindHost}]` : this.bindHost]);
    this.hosts = new Set([...names].map((name) => `${name}:${port}`));
    this.origins = new Set([...[...this.hosts].map((host) => `http://${host}`), ...this.extraOrigins.map(normalizeOrigin)]);
  }

  hostAllowed(host: string | undefined): boolean {
    return host !== undefined && this.hosts.has(host.toLowerCase());
  }

  originAllowed(origin: string | undefined): boolean {
    return origin === undefined || this.origins.has(normalizeOrigin(origin));
  }
}

function normalizeOrigin(origin: string): string {
  return origin.trim().replace(/\/+$/, '').toLowerCase();
}

/** Constant-time check of an `Authorization: Bearer <token>` header. */
export function bearerMatches(header: string | undefined, token: string): boolean {
  if (!header || !header.startsWith('Bearer ') || token.length === 0) return false;
  const given = Buffer.from(header.slice('Bearer '.length).trim(), 'utf8');
  const expected = Buffer.from(token, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}
