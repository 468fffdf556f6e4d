import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { certificateProblem } from '../shared/trusted-ca';
import { BackendUnreachableError, type BackendAddress } from './backend-locator';

/** An answer of the §9 HTTP API: `ok` for 2xx, else `body` is the error body. */
export interface ApiAnswer {
  status: number;
  ok: boolean;
  body: unknown;
}

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

  async request(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    let url: URL;
    try {
      url = new URL(path, this.address.url);
    } catch {
      throw new BackendUnreachableError(`the backend URL ${JSON.stringify(this.address.url)} is not a URL`);
    }
    const payload = body === undefined ? undefined : Buffer.from(JSON.stringify(body), 'utf8');
    const { status, text } = await this.send(url, method, payload);
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (status === 401) throw new BackendUnreachableError(`the backend at ${this.address.url} refused the admin token (401)`);
    return { status, ok: status >= 200 && status < 300, body: parsed };
  }

  private send(url: URL, method: string, payload: Buffer | undefined): Promise<{ status: number; text: string }> {
    const headers: Record<string, string | number> = { authorization: `Bearer ${this.address.token}` };
    if (payload) Object.assign(headers, { 'content-type': 'application/json', 'content-length': payload.length });
    const options = { method, headers, timeout: TIMEOUT_MS };
    return new Promise((resolve, reject) => {
      const answered = (response: IncomingMessage): void => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text: Buffer.concat(chunks).toString('utf8') }));
        response.on('error', (error) => reject(this.unreachable(error)));
      };
      let request;
      if (url.protocol === 'https:') request = httpsRequest(url, { ...options, ca: this.ca }, answered);
      else if (url.protocol === 'http:') request = httpRequest(url, options, answered);
      else return reject(new BackendUnreachableError(`the backend URL ${url.origin} is neither http nor https`));
      request.on('timeout', () => request.destroy(Object.assign(new Error('no answer in time'), { code: 'ETIMEDOUT' })));
      request.on('error', (error) => reject(this.unreachable(error)));
      request.end(payload);
    });
  }

  private unreachable(error: Error): BackendUnreachableError {
    const code = (error as NodeJS.ErrnoException).code;
    return new BackendUnreachableError(certificateProblem(code, this.address.url) ?? `cannot reach the backend at ${this.address.url} (${code ?? error.message})`);
  }
}
