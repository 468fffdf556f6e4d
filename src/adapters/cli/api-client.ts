import { BackendUnreachableError, type BackendAddress } from './backend-locator';

/** An answer of the §9 HTTP API: `ok` for 2xx, else `body` is the error body. */
export interface ApiAnswer {
  status: number;
  ok: boolean;
  body: unknown;
}

/** The operator CLI's view of the HTTP API. Network failures and 401 become BackendUnreachableError. */
export class ApiClient {
  constructor(private readonly address: BackendAddress) {}

  async request(method: string, path: string, body?: unknown): Promise<ApiAnswer> {
    let response: Response;
    try {
      response = await fetch(new URL(path, this.address.url), {
        method,
        headers: {
          authorization: `Bearer ${this.address.token}`,
          ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: AbortSignal.timeout(120000),
      });
    } catch (error) {
      // fetch says only "fetch failed"; the cause says why (ECONNREFUSED, or "bad port" for
      // ports fetch never dials, such as 1 or 6000).
      const cause = (error as { cause?: { code?: string; message?: string } }).cause;
      const reason = cause?.code ?? cause?.message ?? (error as Error).message;
      throw new BackendUnreachableError(`cannot reach the backend at ${this.address.url} (${reason})`);
    }
    const text = await response.text();
    let parsed: unknown = null;
    if (text) {
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = text;
      }
    }
    if (response.status === 401) {
      throw new BackendUnreachableError(`the backend at ${this.address.url} refused the admin token (401)`);
    }
    return { status: response.status, ok: response.ok, body: parsed };
  }
}
