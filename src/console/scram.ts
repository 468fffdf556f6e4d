/**
 * The console's side of the admin sign-in (docs/http-api.md §1): SCRAM-SHA-256 as the CLI and
 * an agentctl's link do it, on the browser's WebCrypto. The console proves it holds the admin
 * token without sending it, and believes the server only once the server proved it holds the
 * token's verifier. WebCrypto exists in secure contexts only: https, or http on localhost.
 */
const GS2_HEADER = 'n,,';
const CHANNEL_BINDING = btoa(GS2_HEADER);
const MIN_ITERATIONS = 4096;
/** More is an impostor making the browser burn CPU. */
const MAX_ITERATIONS = 100_000;

export type ScramStep = { ok: true; value: string } | { ok: false; reason: string };

type Bytes = Uint8Array<ArrayBuffer>;

export class ConsoleScram {
  private readonly nonce = base64url(crypto.getRandomValues(new Uint8Array(18)));
  private readonly firstBare: string;
  private expectedSignature: Bytes | undefined;

  constructor(
    name: string,
    private readonly token: string,
  ) {
    this.firstBare = `n=${name},r=${this.nonce}`;
  }

  first(): string {
    return GS2_HEADER + this.firstBare;
  }

  async final(serverFirst: string): Promise<ScramStep> {
    const fields = attributes(serverFirst);
    const nonce = fields.get('r');
    const salt = fields.get('s');
    const iterations = Number(fields.get('i'));
    if (fields.has('m') || nonce === undefined || salt === undefined) return { ok: false, reason: 'not a SCRAM server-first-message' };
    if (!nonce.startsWith(this.nonce) || nonce.length === this.nonce.length) return { ok: false, reason: "the server's nonce does not extend ours" };
    if (!Number.isInteger(iterations) || iterations < MIN_ITERATIONS || iterations > MAX_ITERATIONS)
      return { ok: false, reason: 'iteration count out of range' };
    const subtle = crypto.subtle;
    const password = await subtle.importKey('raw', new TextEncoder().encode(this.token), 'PBKDF2', false, ['deriveBits']);
    const salted = new Uint8Array(await subtle.deriveBits({ name: 'PBKDF2', hash: 'SHA-256', salt: fromBase64(salt), iterations }, password, 256));
    const withoutProof = `c=${CHANNEL_BINDING},r=${nonce}`;
    const authMessage = `${this.firstBare},${serverFirst},${withoutProof}`;
    const clientKey = await hmac(salted, 'Client Key');
    const storedKey = new Uint8Array(await subtle.digest('SHA-256', clientKey));
    const signature = await hmac(storedKey, authMessage);
    const proof = clientKey.map((byte, i) => byte ^ signature[i]!);
    this.expectedSignature = await hmac(await hmac(salted, 'Server Key'), authMessage);
    return { ok: true, value: `${withoutProof},p=${toBase64(proof)}` };
  }

  /** True only when the server's last message carries the signature only the token's verifier makes. */
  verify(serverFinal: string): boolean {
    const given = attributes(serverFinal).get('v');
    if (given === undefined || this.expectedSignature === undefined) return false;
    const bytes = fromBase64(given);
    if (bytes.length !== this.expectedSignature.length) return false;
    let difference = 0;
    for (let i = 0; i < bytes.length; i += 1) difference |= bytes[i]! ^ this.expectedSignature[i]!;
    return difference === 0;
  }
}

async function hmac(key: Bytes, text: string): Promise<Bytes> {
  const imported = await crypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return new Uint8Array(await crypto.subtle.sign('HMAC', imported, new TextEncoder().encode(text)));
}

function attributes(message: string): Map<string, string> {
  const fields = new Map<string, string>();
  for (const part of message.split(',')) {
    const match = /^([A-Za-z])=(.*)$/s.exec(part);
    if (match && !fields.has(match[1]!)) fields.set(match[1]!, match[2]!);
  }
  return fields;
}

function toBase64(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes));
}

function base64url(bytes: Uint8Array): string {
  return toBase64(bytes).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

function fromBase64(text: string): Bytes {
  try {
    return Uint8Array.from(atob(text), (char) => char.charCodeAt(0));
  } catch {
    return new Uint8Array(0);
  }
}
