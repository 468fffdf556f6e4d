import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import type { ApiRoute, ApiRoutes, RouteParams } from '../../api';
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

/**
 * The operator CLI's view of the HTTP API, over http or https (trusting `ca` besides the
 * system's certificates). Network failures, an untrusted certificate and 401 become
 * BackendUnreachableError, each with one line saying why.
 */
export class ApiClient {
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
    const response = await this.open(this.urlOf(path), method, payload, TIMEOUT_MS);
    const text = await new Promise<string>((resolve, reject) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
      response.on('error', (error) => reject(this.unreachable(error)));
    });
    const status = response.statusCode ?? 0;
    const parsed = parseBody(text);
    if (status === 401) throw new BackendUnreachableError(`the backend at ${this.address.url} refused the admin token (401)`, parsed);
    return status >= 200 && status < 300 ? { status, ok: true, body: parsed } : { status, ok: false, body: parsed };
  }

  /**
   * A GET whose body is read as it arrives (the live channel): resolves with the response once
   * its headers are in and it is 2xx; a refusal is read whole and answered as `refused`. The
   * stream counts as gone after `idleMs` without a byte (the backend sends a heartbeat).
   */
  async stream(path: string, idleMs: number): Promise<{ response: IncomingMessage } | { refused: ApiRefusal }> {
    const response = await this.open(this.urlOf(path), 'GET', undefined, idleMs);
    const status = response.statusCode ?? 0;
    if (status >= 200 && status < 300) return { response };
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

  private open(url: URL, method: string, payload: Buffer | undefined, timeout: number): Promise<IncomingMessage> {
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.address.token}` };
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
