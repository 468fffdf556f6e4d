import type { SignedIn, SignInChallenge } from '../api';
import { keepCredential, KEPT_PREFIX } from './admin-token';
import { ConsoleScram } from './scram';

/** Why the console sent nothing more: the server failed the sign-in, or refused the token. */
export class SignInError extends Error {
  constructor(
    /** 401: the backend refused the token; 0: the server did not prove it is the backend, or did not answer. */
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'SignInError';
  }
}

/**
 * The console's standing with the backend that served it (docs/http-api.md §1). The admin
 * token stays in the page's memory: the console signs in by SCRAM-SHA-256 and sends the API only the
 * short-lived credential the server handed out once it proved it holds the token's verifier.
 * Any dropped or failed connection forgets the credential (`dropped`), so the next request
 * proves the server again first: a process that took the port after the backend stopped gets
 * a sign-in it cannot finish, never the token or a credential.
 */
export class BackendSession {
  private credential: string | undefined;
  private signingIn: Promise<string> | undefined;
  /** Undefined after a reload: the tab holds only the credential it kept, and cannot sign in again. */
  private readonly token: string | undefined;

  /** `key`: the admin token, or `credential:<credential>` kept by this tab before a reload. */
  constructor(key: string) {
    if (key.startsWith(KEPT_PREFIX)) this.credential = key.slice(KEPT_PREFIX.length);
    else this.token = key;
  }

  /** The credential to send: the held one, or one from a new sign-in. */
  current(): Promise<string> {
    if (this.credential !== undefined) return Promise.resolve(this.credential);
    this.signingIn ??= this.signIn().finally(() => {
      this.signingIn = undefined;
    });
    return this.signingIn;
  }

  /**
   * The connection dropped or a request failed: prove the server again before anything else is
   * sent. Without the token (after a reload) that is a new sign-in by the operator.
   */
  dropped(): void {
    this.credential = undefined;
  }

  private async signIn(): Promise<string> {
    if (this.token === undefined) throw new SignInError(401, 'the backend must be signed in to again');
    if (!globalThis.crypto?.subtle) {
      throw new SignInError(0, 'signing in needs a secure page: open the console over https, or over http on localhost');
    }
    const scram = new ConsoleScram('admin', this.token);
    const challenge = await post<SignInChallenge>('/api/v1/auth/begin', { mechanism: 'SCRAM-SHA-256', message: scram.first() });
    if (typeof challenge?.exchange !== 'string' || typeof challenge.message !== 'string') throw notProven();
    const proof = await scram.final(challenge.message);
    if (!proof.ok) throw notProven();
    const signed = await post<SignedIn>('/api/v1/auth/finish', { exchange: challenge.exchange, message: proof.value });
    if (typeof signed?.message !== 'string' || typeof signed.credential !== 'string' || !scram.verify(signed.message)) throw notProven();
    this.credential = signed.credential;
    keepCredential(signed.credential);
    return signed.credential;
  }
}

const sessions = new Map<string, BackendSession>();

/** One session per admin token for the page's lifetime. */
export function sessionFor(token: string): BackendSession {
  let session = sessions.get(token);
  if (!session) {
    session = new BackendSession(token);
    sessions.set(token, session);
  }
  return session;
}

function notProven(): SignInError {
  return new SignInError(0, 'the server at this address did not prove it is the backend; nothing was sent to it');
}

/** A sign-in request: carries no credential of any kind. */
async function post<T>(path: string, body: unknown): Promise<Partial<T> | null> {
  let response: Response;
  try {
    response = await fetch(path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
  } catch {
    throw new SignInError(0, 'the backend did not answer');
  }
  if (response.status === 401) throw new SignInError(401, 'the backend refused the token');
  if (!response.ok) throw notProven();
  try {
    return (await response.json()) as Partial<T>;
  } catch {
    throw notProven();
  }
}
