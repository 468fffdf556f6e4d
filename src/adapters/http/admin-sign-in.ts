import { createHash, randomBytes } from 'node:crypto';
import express, { Router } from 'express';
import type { SignedIn, SignInChallenge } from '../../api';
import { bearerMatches, bearerToken } from '../shared/bearer';
import { parseClientFirst, parseScramVerifier, SCRAM_MECHANISM, scramVerifier, serverFirst, verifyClientFinal, type ScramVerifier } from '../shared/scram';
import { sendError } from './http-errors';

/** The SCRAM user name of the admin token. */
export const ADMIN_NAME = 'admin';
/** What the backend answers a sign-in with: a credential that this process alone accepts. */
export const CREDENTIAL_PREFIX = 'tpc1_';

export interface AdminSignInOptions {
  /** How long a credential is accepted (default 10 minutes); the clients sign in again after. */
  credentialTtlMs?: number;
  /** How long a begun exchange waits for its finish (default 10 s). */
  exchangeTtlMs?: number;
  now?: () => number;
}

interface Exchange {
  clientFirstBare: string;
  serverFirst: string;
  expires: number;
}

/** Held in memory only: a restart, or another backend on the same store, knows none of them. */
const MAX_PENDING = 1024;
const MAX_CREDENTIALS = 4096;

/**
 * The admin sign-in of docs/http-api.md §1: SCRAM-SHA-256 over two open requests
 * (`POST /api/v1/auth/begin`, `POST /api/v1/auth/finish`). The client proves it holds the admin
 * token without sending it; the backend proves it holds the token's verifier (the client checks
 * that before anything else) and hands out a credential bound to this process: a random value
 * kept here, in memory, for a short time, so it is useless against any other process and
 * against this backend once it has restarted. The API accepts that credential, or the admin
 * token itself (for scripts), as its bearer.
 */
export class AdminSignIn {
  /** Random per process; written to backend.json and answered with each sign-in. */
  readonly instanceId = randomBytes(16).toString('base64url');
  private readonly verifier: ScramVerifier;
  private readonly pending = new Map<string, Exchange>();
  /** SHA-256 of each credential handed out, with its expiry. */
  private readonly credentials = new Map<string, number>();
  private readonly credentialTtlMs: number;
  private readonly exchangeTtlMs: number;
  private readonly now: () => number;

  constructor(
    private readonly adminToken: string,
    options: AdminSignInOptions = {},
  ) {
    const parsed = parseScramVerifier(scramVerifier(adminToken));
    if (!parsed.ok) throw new Error(parsed.reason);
    this.verifier = parsed.value;
    this.credentialTtlMs = options.credentialTtlMs ?? 10 * 60_000;
    this.exchangeTtlMs = options.exchangeTtlMs ?? 10_000;
    this.now = options.now ?? Date.now;
  }

  /** Whether an `Authorization` header carries the admin token or a live credential of this process. */
  authorizes(header: string | undefined): boolean {
    if (bearerMatches(header, this.adminToken)) return true;
    const presented = bearerToken(header);
    if (!presented.startsWith(CREDENTIAL_PREFIX)) return false;
    const key = digest(presented);
    const expires = this.credentials.get(key);
    if (expires === undefined) return false;
    if (expires > this.now()) return true;
    this.credentials.delete(key);
    return false;
  }

  /** The server-first-message for a client-first-message, or why it is refused. */
  begin(body: unknown): SignInChallenge | string {
    const fields = body as { mechanism?: unknown; message?: unknown } | null;
    if (fields?.mechanism !== SCRAM_MECHANISM) return `mechanism must be ${JSON.stringify(SCRAM_MECHANISM)}`;
    if (typeof fields.message !== 'string') return 'message must be a SCRAM client-first-message';
    const first = parseClientFirst(fields.message);
    if (!first.ok) return first.reason;
    if (first.value.username !== ADMIN_NAME) return `the user name must be ${JSON.stringify(ADMIN_NAME)}`;
    this.sweep();
    while (this.pending.size >= MAX_PENDING) this.pending.delete(this.pending.keys().next().value!);
    const exchange = randomBytes(18).toString('base64url');
    const message = serverFirst(this.verifier, first.value.nonce);
    this.pending.set(exchange, { clientFirstBare: first.value.bare, serverFirst: message, expires: this.now() + this.exchangeTtlMs });
    return { exchange, message };
  }

  /** The server-final-message and a credential when the proof holds; undefined otherwise (one refusal for every cause). */
  finish(body: unknown): SignedIn | undefined {
    const fields = body as { exchange?: unknown; message?: unknown } | null;
    if (typeof fields?.exchange !== 'string' || typeof fields.message !== 'string') return undefined;
    const exchange = this.pending.get(fields.exchange);
    // One try per exchange: a guess spends it.
    this.pending.delete(fields.exchange);
    if (!exchange || exchange.expires <= this.now()) return undefined;
    const checked = verifyClientFinal(this.verifier, exchange.clientFirstBare, exchange.serverFirst, fields.message);
    if (!checked.ok) return undefined;
    this.sweep();
    while (this.credentials.size >= MAX_CREDENTIALS) this.credentials.delete(this.credentials.keys().next().value!);
    const credential = CREDENTIAL_PREFIX + randomBytes(32).toString('base64url');
    this.credentials.set(digest(credential), this.now() + this.credentialTtlMs);
    return { message: checked.value, credential, expires_in_ms: this.credentialTtlMs, instance_id: this.instanceId };
  }

  /** The two open routes, each with its own small body limit (a SCRAM message is short). */
  router(): Router {
    const router = Router();
    const json = express.json({ limit: '4kb', type: ['application/json', '+json'] });
    router.post('/api/v1/auth/begin', json, (req, res) => {
      const answer = this.begin(req.body);
      if (typeof answer === 'string') return sendError(res, 400, 'BAD_REQUEST', answer);
      res.status(200).json(answer);
    });
    router.post('/api/v1/auth/finish', json, (req, res) => {
      const answer = this.finish(req.body);
      if (!answer) return sendError(res, 401, 'UNAUTHORIZED', 'the sign-in failed');
      res.status(200).json(answer);
    });
    return router;
  }

  private sweep(): void {
    const now = this.now();
    for (const [key, exchange] of this.pending) if (exchange.expires <= now) this.pending.delete(key);
    for (const [key, expires] of this.credentials) if (expires <= now) this.credentials.delete(key);
  }
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}
