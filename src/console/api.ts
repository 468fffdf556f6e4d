import type { ErrorBody } from '../api';

/** A refusal of the API, as its error body says it: `{error: {code, message, details}}`. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details: unknown,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ApiBody {
  json?: unknown;
  /** A package file, sent as the gzip body install and upgrade accept. */
  file?: Blob;
}

/** One call of the backend's API with the admin token as the bearer; resolves with the parsed answer. */
export async function callApi<T>(token: string, method: string, path: string, body: ApiBody = {}): Promise<T> {
  const headers: Record<string, string> = { authorization: `Bearer ${token}` };
  let payload: BodyInit | undefined;
  if (body.file) {
    headers['content-type'] = 'application/gzip';
    payload = body.file;
  } else if (body.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  let response: Response;
  try {
    response = await fetch(path, { method, headers, body: payload });
  } catch {
    throw new ApiError(0, 'UNREACHABLE', 'the backend did not answer', null);
  }
  const text = await response.text();
  const parsed = text === '' ? null : safeJson(text);
  if (response.ok) return parsed as T;
  const error = (parsed as Partial<ErrorBody> | null)?.error;
  throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText, error?.details ?? null);
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
