export interface ApiAnswer<T> {
  status: number;
  body: T;
}

/** One call of the §9 HTTP API: JSON in, the status and the parsed body (null when empty) out. */
export type AdminApi = <T = any>(method: string, path: string, body?: unknown) => Promise<ApiAnswer<T>>;

/** A client for the §9 HTTP API of the backend at `url`, sending `token` as the bearer. */
export function adminApi(url: string, token: string): AdminApi {
  return async <T>(method: string, path: string, body?: unknown): Promise<ApiAnswer<T>> => {
    const response = await fetch(new URL(path, url), {
      method,
      headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await response.text();
    return { status: response.status, body: (text ? JSON.parse(text) : null) as T };
  };
}
