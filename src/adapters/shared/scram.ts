import { createHash, createHmac, pbkdf2Sync, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * SCRAM-SHA-256 (RFC 5802 with RFC 7677's hash), the mutual authentication of an agentctl's
 * link: the agentctl proves it holds its session token without sending it, and the backend
 * proves it holds the session's verifier, which only the backend that started the session
 * has. A process that took the backend's port learns nothing it can use (a proof is bound to
 * one exchange's nonces and salt) and cannot answer the last message, so the agentctl links to
 * it never. The backend keeps the verifier, not the token: a copy of its store lets no one act
 * as the agentctl.
 *
 * Messages are RFC 5802's texts without channel binding (`n,,`). Tokens are ASCII, so the
 * SASLprep step is the identity. The verifier is kept in PostgreSQL's own layout:
 * `SCRAM-SHA-256$<iterations>:<salt>$<StoredKey>:<ServerKey>`, base64.
 */

export const SCRAM_MECHANISM = 'SCRAM-SHA-256';
/** RFC 7677's minimum; the token is 256 random bits, so more buys nothing. */
export const SCRAM_ITERATIONS = 4096;
/** More than this is an impostor making the agentctl burn CPU: refused. */
const MAX_ITERATIONS = 100_000;
const GS2_HEADER = 'n,,';
const CHANNEL_BINDING = Buffer.from(GS2_HEADER).toString('base64');

export interface ScramVerifier {
  iterations: number;
  salt: Buffer;
  storedKey: Buffer;
  serverKey: Buffer;
}

export type ScramResult<T> = { ok: true; value: T } | { ok: false; reason: string };

const fail = <T>(reason: string): ScramResult<T> => ({ ok: false, reason });

/** The verifier the backend stores for `token`, with a fresh salt unless one is given. */
export function scramVerifier(token: string, salt: Buffer = randomBytes(16), iterations = SCRAM_ITERATIONS): string {
  const salted = saltedPassword(token, salt, iterations);
  const storedKey = sha256(hmac(salted, 'Client Key'));
  const serverKey = hmac(salted, 'Server Key');
  return `${SCRAM_MECHANISM}$${iterations}:${salt.toString('base64')}$${storedKey.toString('base64')}:${serverKey.toString('base64')}`;
}

export function parseScramVerifier(text: string): ScramResult<ScramVerifier> {
  const match = /^SCRAM-SHA-256\$(\d{1,9}):([A-Za-z0-9+/=]+)\$([A-Za-z0-9+/=]+):([A-Za-z0-9+/=]+)$/.exec(text);
  if (!match) return fail('not a SCRAM-SHA-256 verifier');
  const verifier = { iterations: Number(match[1]), salt: base64(match[2]!), storedKey: base64(match[3]!), serverKey: base64(match[4]!) };
  if (verifier.storedKey.length !== 32 || verifier.serverKey.length !== 32) return fail('not a SCRAM-SHA-256 verifier');
  return { ok: true, value: verifier };
}

/** A fresh nonce: printable, no commas (RFC 5802 §5.1). */
export function scramNonce(): string {
  return randomBytes(18).toString('base64url');
}

// ---------------------------------------------------------------------------------------
// The agentctl's side.

/** One exchange as the client: first(), then final(serverFirst), then verify(serverFinal). */
export class ScramClient {
  private readonly firstBare: string;
  private expectedSignature: Buffer | undefined;

  constructor(
    username: string,
    private readonly password: string,
    private readonly nonce: string = scramNonce(),
    /** Salted passwords already derived, by salt and iterations (PBKDF2 once per session, not per link). */
    private readonly derived: Map<string, Buffer> = new Map(),
  ) {
    this.firstBare = `n=${saslName(username)},r=${nonce}`;
  }

  first(): string {
    return GS2_HEADER + this.firstBare;
  }

  final(serverFirst: string): ScramResult<string> {
    const fields = attributes(serverFirst);
    const nonce = fields.get('r');
    const salt = fields.get('s');
    const iterations = Number(fields.get('i'));
    if (fields.has('m')) return fail('the server asks for an extension this client does not know');
    if (nonce === undefined || salt === undefined || !fields.has('i')) return fail('server-first-message lacks r, s or i');
    if (!nonce.startsWith(this.nonce) || nonce.length === this.nonce.length) return fail("the server's nonce does not extend ours");
    if (!Number.isInteger(iterations) || iterations < SCRAM_ITERATIONS || iterations > MAX_ITERATIONS) {
      return fail(`iteration count ${fields.get('i')} is outside ${SCRAM_ITERATIONS}..${MAX_ITERATIONS}`);
    }
    const key = `${iterations}:${salt}`;
    let salted = this.derived.get(key);
    if (salted === undefined) {
      salted = saltedPassword(this.password, base64(salt), iterations);
      this.derived.set(key, salted);
    }
    const withoutProof = `c=${CHANNEL_BINDING},r=${nonce}`;
    const authMessage = `${this.firstBare},${serverFirst},${withoutProof}`;
    const clientKey = hmac(salted, 'Client Key');
    const proof = xor(clientKey, hmac(sha256(clientKey), authMessage));
    this.expectedSignature = hmac(hmac(salted, 'Server Key'), authMessage);
    return { ok: true, value: `${withoutProof},p=${proof.toString('base64')}` };
  }

  /** True only when the server proved it holds this session's verifier. */
  verify(serverFinal: string): boolean {
    const signature = attributes(serverFinal).get('v');
    if (this.expectedSignature === undefined || signature === undefined) return false;
    const given = base64(signature);
    return given.length === this.expectedSignature.length && timingSafeEqual(given, this.expectedSignature);
  }
}

// ---------------------------------------------------------------------------------------
// The backend's side.

export interface ScramClientFirst {
  username: string;
  nonce: string;
  bare: string;
}

export function parseClientFirst(message: string): ScramResult<ScramClientFirst> {
  if (!message.startsWith(GS2_HEADER)) return fail('client-first-message must start with "n,," (no channel binding, no authzid)');
  const bare = message.slice(GS2_HEADER.length);
  const fields = attributes(bare);
  const name = fields.get('n');
  const nonce = fields.get('r');
  if (fields.has('m')) return fail('extensions are not supported');
  if (name === undefined || nonce === undefined || nonce === '' || !/^[\x21-\x2b\x2d-\x7e]+$/.test(nonce)) {
    return fail('client-first-message needs n=<name> and r=<nonce>');
  }
  const username = unSaslName(name);
  if (username === undefined) return fail('the user name is not validly escaped');
  return { ok: true, value: { username, nonce, bare } };
}

/** The server-first-message for `verifier`, extending the client's nonce with ours. */
export function serverFirst(verifier: ScramVerifier, clientNonce: string, serverNonce: string = scramNonce()): string {
  return `r=${clientNonce}${serverNonce},s=${verifier.salt.toString('base64')},i=${verifier.iterations}`;
}

/**
 * Checks the client's proof; on success the server-final-message carrying our signature.
 * Any mismatch (nonce, channel binding, proof) is one refusal, saying no more than needed.
 */
export function verifyClientFinal(verifier: ScramVerifier, clientFirstBare: string, sentServerFirst: string, clientFinal: string): ScramResult<string> {
  const proofAt = clientFinal.lastIndexOf(',p=');
  if (proofAt < 0) return fail('client-final-message lacks a proof');
  const withoutProof = clientFinal.slice(0, proofAt);
  const fields = attributes(withoutProof);
  if (fields.get('c') !== CHANNEL_BINDING) return fail('channel binding does not match "n,,"');
  if (fields.get('r') !== attributes(sentServerFirst).get('r')) return fail('the nonce does not match this exchange');
  const proof = base64(clientFinal.slice(proofAt + 3));
  if (proof.length !== verifier.storedKey.length) return fail('the proof is not valid');
  const authMessage = `${clientFirstBare},${sentServerFirst},${withoutProof}`;
  const clientKey = xor(proof, hmac(verifier.storedKey, authMessage));
  if (!timingSafeEqual(sha256(clientKey), verifier.storedKey)) return fail('the proof is not valid');
  return { ok: true, value: `v=${hmac(verifier.serverKey, authMessage).toString('base64')}` };
}

// ---------------------------------------------------------------------------------------

function saltedPassword(password: string, salt: Buffer, iterations: number): Buffer {
  return pbkdf2Sync(Buffer.from(password, 'utf8'), salt, iterations, 32, 'sha256');
}

function hmac(key: Buffer, text: string): Buffer {
  return createHmac('sha256', key).update(text, 'utf8').digest();
}

function sha256(data: Buffer): Buffer {
  return createHash('sha256').update(data).digest();
}

function xor(a: Buffer, b: Buffer): Buffer {
  const out = Buffer.alloc(a.length);
  for (let i = 0; i < a.length; i += 1) out[i] = a[i]! ^ b[i]!;
  return out;
}

function base64(text: string): Buffer {
  return Buffer.from(text, 'base64');
}

/** `a=1,b=2` as a map; the first value of a repeated attribute wins. */
function attributes(message: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of message.split(',')) {
    const match = /^([A-Za-z])=(.*)$/s.exec(part);
    if (match && !fields.has(match[1]!)) fields.set(match[1]!, match[2]!);
  }
  return fields;
}

function saslName(name: string): string {
  return name.replace(/=/g, '=3D').replace(/,/g, '=2C');
}

function unSaslName(name: string): string | undefined {
  if (/=(?!2C|3D)/.test(name)) return undefined;
  return name.replace(/=2C/g, ',').replace(/=3D/g, '=');
}
