import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ApiRoute, ApiRoutes, RouteParams, SignedIn, SignInChallenge } from '../../api';
import { SCRAM_MECHANISM, ScramClient } from '../shared/scram';
import { certificateProblem } from '../shared/trusted-ca';
import { BackendUnreachableError, type BackendAddress } from './backend-locator';

/** An answer of the HTTP API: `ok` for 2xx with the body it declares, else `body` is the error body. */
export type ApiAnswer<Body = unknown> = { status: number; ok: true; body: Body } | ApiRefusal;

/** A refusal: `body` is the error body, or what came instead. */
export interface ApiRefusal {
  status: number;
  ok: false;
  body: unknown;
}

/** What one call of a route sends: its path's `:name` parameters, a query, a JSON body. */
export type RouteRequest<R extends ApiRoute> = ([RouteParams<R>] extends [never] ? { params?: undefined } : { params: Record<RouteParams<R>, string> }) & {
  query?: Record<string, string>;
  body?: unknown;
};

const TIMEOUT_MS = 120_000;
/** The admin token's SCRAM user name (docs/http-api.md §1). */
const ADMIN_NAME = 'admin';

/**
 * The operator CLI's view of the HTTP API, over http or https (trusting `ca` besides the
 * system's certificates). Network failures, an untrusted certificate and 401 become
 * BackendUnreachableError, each with one line saying why.
 *
 * The admin token never leaves this process (docs/http-api.md §1): the client signs in by
 * SCRAM-SHA-256, checks that the server proved it holds the token's verifier (and, when the
 * address came from backend.json, that it is the instance the file names), and only then sends
 * the short-lived credential the backend handed out. A failed or dropped connection forgets the
 * credential, so the next request proves the server again first.
 */
export class ApiClient {
  private credential: string | undefined;

  constructor(
    private readonly address: BackendAddress,
    private readonly ca?: string,
  ) {}

  /** One call of `route` ("GET /api/v1/plugins/:id"), answered with the body src/api declares for it. */
  call<R extends ApiRoute>(
    route: R,
    ...[request]: [RouteParams<R>] extends [never] ? [RouteRequest<R>?] : [RouteRequest<R>]
  ): Promise<ApiAnswer<ApiRoutes[R]>> {
    const [method, template] = route.split(' ') as [string, string];
    const params: Record<string, string> = request?.params ?? {};
    const path = template.replace(/:(\w+)/g, (_whole, name: string) => encodeURIComponent(params[name]!));
    const query = request?.query ? `?${new URLSearchParams(request.query).toString()}` : '';
    // The backend answers what src/api declares: the CLI reads it as that, unchecked.
    return this.request(method, path + query, request?.body) as Promise<ApiAnswer<ApiRoutes[R]>>;
  }

  async request(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    let answer = await this.authorized(method, path, payload);
    // A credential outlived (it is short-lived): refused before anything was done, so sign in again once.
    if (answer.status === 401) {
      this.credential = undefined;
      answer = await this.authorized(method, path, payload);
    }
    const parsed = parseBody(answer.text);
    if (answer.status === 401) throw new BackendUnreachableError(`the backend at ${this.address.url} refused the admin token (401)`, parsed);
    const status = answer.status;
    return status >= 200 && status < 300 ? { status, ok: true, body: parsed } : { status, ok: false, body: parsed };
  }

  private async authorized(method: string, path: string, payload: Buffer | undefined): Promise<{ status: number; text: string }> {
    const credential = await this.signedIn();
    const response = await this.open(this.urlOf(path), method, payload, TIMEOUT_MS, credential);
    return { status: response.statusCode ?? 0, text: await this.readText(response) };
  }

  private readText(response: IncomingMessage): Promise<string> {
    return new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', (error) => reject(this.unreachable(error)));
    });
  }

  /**
   * The credential to send: the one held, or a new one from a sign-in in which the server
   * proved it is the backend. Nothing secret is sent before that proof: the exchange carries
   * the client's proof, which is bound to this exchange's nonces and useless to anyone else.
   */
  private async signedIn(): Promise<string> {
    if (this.credential !== undefined) return this.credential;
    const where = this.address.url;
    const notProven = (why: string) =>
      new BackendUnreachableError(`the server at ${where} did not prove it is the backend (${why}); nothing more was sent to it`);
    const client = new ScramClient(ADMIN_NAME, this.address.token);
    const begun = await this.exchange('/api/v1/auth/begin', { mechanism: SCRAM_MECHANISM, message: client.first() });
    const challenge = begun.body as Partial<SignInChallenge> | null;
    if (begun.status !== 200 || typeof challenge?.exchange !== 'string' || typeof challenge.message !== 'string') {
      throw notProven(`no admin sign-in: ${begun.status === 200 ? 'an answer that is not one' : `HTTP ${begun.status}`}`);
    }
    const proof = client.final(challenge.message);
    if (!proof.ok) throw notProven(proof.reason);
    const finished = await this.exchange('/api/v1/auth/finish', { exchange: challenge.exchange, message: proof.value });
    if (finished.status === 401) throw new BackendUnreachableError(`the backend at ${where} refused the admin token (401)`, finished.body);
    const signed = finished.body as Partial<SignedIn> | null;
    if (finished.status !== 200 || typeof signed?.message !== 'string' || typeof signed.credential !== 'string') {
      throw notProven(`the sign-in answered HTTP ${finished.status}`);
    }
    if (!client.verify(signed.message)) throw notProven("its signature does not match the admin token's");
    if (this.address.instanceId !== undefined && signed.instance_id !== this.address.instanceId) {
      throw notProven(`it is not the backend instance backend.json names`);
    }
    this.credential = signed.credential;
    return signed.credential;
  }

  private async exchange(path: string, body: unknown): Promise<{ status: number; body: unknown }> {
    const payload = Buffer.from(JSON.stringify(body), 'utf8');
    const response = await this.open(this.urlOf(path), 'POST', payload, TIMEOUT_MS, undefined);
    return { status: response.statusCode ?? 0, body: parseBody(await this.readText(response)) };
  }

  /**
   * A GET whose body is read as it arrives (the live channel): resolves with the response once
   * its headers are in and it is 2xx; a refusal is read whole and answered as `refused`. The
   * stream counts as gone after `idleMs` without a byte (the backend sends a heartbeat).
   */
  async stream(path: string, idleMs: number): Promise<{ response: IncomingMessage } | { refused: ApiRefusal }> {
    let response = await this.open(this.urlOf(path), 'GET', undefined, idleMs, await this.signedIn());
    if (response.statusCode === 401) {
      response.resume();
      this.credential = undefined;
      response = await this.open(this.urlOf(path), 'GET', undefined, idleMs, await this.signedIn());
    }
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) {
      // When the stream ends the connection is gone: whoever answers next proves itself first.
      response.once('close', () => {
        this.credential = undefined;
      });
      return { response };
    }
    const chunks: Buffer[] = [];
    for await (const chunk of response) chunks.push(chunk as Buffer);
    const body = parseBody(Buffer.concat(chunks).toString('utf8'));
    if (status === 401) throw new BackendUnreachableError(`the backend at ${this.address.url} refused the admin token (401)`, body);
    return { refused: { status, ok: false, body } };
  }

  private urlOf(path: string): URL {
    try {
      return new URL(path, this.address.url);
    } catch {
      throw new BackendUnreachableError(`the backend URL ${JSON.stringify(this.address.url)} is not a URL`);
    }
  }

  private open(url: URL, method: string, payload: Buffer | undefined, timeout: number, credential: string | undefined): Promise<IncomingMessage> {
    const headers: Record<string, string | number> = credential === undefined ? {} : { authorization: `Bearer ${credential}` };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
    const options = { method, headers, timeout };
    return new Promise((resolve, reject) => {
      let request;
      if (url.protocol === 'https:') request = httpsRequest(url, { ...options, ca: this.ca }, resolve);
      else if (url.protocol === 'http:') request = httpRequest(url, options, resolve);
      else return reject(new BackendUnreachableError(`the backend URL ${url.origin} is neither http nor https`));
      request.on('timeout', () => request.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' })));
      request.on('error', (error) => reject(this.unreachable(error)));
      request.end(payload);
    });
  }

  private unreachable(error: Error): BackendUnreachableError {
    // A failed connection: the next request proves the server again before sending anything.
    this.credential = undefined;
    const code = (error as NodeJS.ErrnoException).code;
    return new BackendUnreachableError(
      certificateProblem(code, this.address.url) ?? `cannot reach the backend at ${this.address.url} (${code ?? error.message})`,
    );
  }
}

function parseBody(text: string): unknown {
  if (!text) return null;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
