import type { ErrorBody } from '../api';
import { SignInError, sessionFor } from './backend-session';

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

/**
 * One call of the backend's API for the holder of the admin token `token`, which is never sent:
 * the bearer is the credential of a sign-in in which the server proved it is the backend
 * (./backend-session.ts). A refused credential (it outlived its time) signs in again once.
 */
export async function callApi<T>(token: string, method: string, path: string, body: ApiBody = {}): Promise<T> {
  const session = sessionFor(token);
  let response = await send(session, method, path, body);
  if (response.status === 401) {
    session.dropped();
    response = await send(session, method, path, body);
  }
  const text = await response.text();
  const parsed = text === '' ? null : safeJson(text);
  if (response.ok) return parsed as T;
  const error = (parsed as Partial<ErrorBody> | null)?.error;
  throw new ApiError(response.status, error?.code ?? `HTTP_${response.status}`, error?.message ?? response.statusText, error?.details ?? null);
}

async function send(session: ReturnType<typeof sessionFor>, method: string, path: string, body: ApiBody): Promise<Response> {
  let credential: string;
  try {
    credential = await session.current();
  } catch (error) {
    const refused = error instanceof SignInError && error.status === 401;
    throw new ApiError(refused ? 401 : 0, refused ? 'UNAUTHORIZED' : 'NOT_PROVEN', (error as Error).message, null);
  }
  const headers: Record<string, string> = { authorization: `Bearer ${credential}` };
  let payload: BodyInit | undefined;
  if (body.file) {
    headers['content-type'] = 'application/gzip';
    payload = body.file;
  } else if (body.json !== undefined) {
    headers['content-type'] = 'application/json';
    payload = JSON.stringify(body.json);
  }
  try {
    return await fetch(path, { method, headers, body: payload });
  } catch {
    session.dropped();
    throw new ApiError(0, 'UNREACHABLE', 'the backend did not answer', null);
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
