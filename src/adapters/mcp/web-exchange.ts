import type { IncomingMessage, ServerResponse } from 'node:http';

/**
 * The SDK v2 transports speak web-standard `Request`/`Response`. The body stays out of the
 * `Request` (the caller hands the parsed body over separately), and the request's signal
 * is `aborts`'s: it aborts when the client drops the connection before its answer was written
 * (which is how a dropped call reaches its handler), or when the caller aborts it.
 */
export function toWebRequest(req: IncomingMessage, res: ServerResponse, origin: string, aborts = new AbortController()): Request {
  const headers = webHeaders(req);
  abortOnClose(res, aborts);
  return new Request(`${origin}${req.url ?? '/'}`, { method: req.method, headers, signal: aborts.signal });
}

/**
 * The same request for a 2025 session's transport, which reads only its method, URL, headers
 * and signal when the body was parsed here (and nothing of a GET or DELETE but its headers):
 * those four, without undici's `Request` (its URL parsing and a signal of its own following
 * this one cost more than the rest of the request side; bench/PROFILE.md §13). The 2026-07-28
 * handler may clone a request, so it gets a real one from `toWebRequest`.
 */
export function sessionRequest(req: IncomingMessage, res: ServerResponse, origin: string): Request {
  const aborts = new AbortController();
  abortOnClose(res, aborts);
  const request: Pick<Request, 'method' | 'url' | 'headers' | 'signal'> = {
    method: req.method ?? 'GET',
    url: `${origin}${req.url ?? '/'}`,
    headers: webHeaders(req),
    signal: aborts.signal,
  };
  return request as Request;
}

function webHeaders(req: IncomingMessage): Headers {
  const headers = new Headers();
  for (const [name, value] of Object.entries(req.headers)) {
    if (value === undefined) continue;
    headers.set(name, Array.isArray(value) ? value.join(', ') : value);
  }
  return headers;
}

function abortOnClose(res: ServerResponse, aborts: AbortController): void {
  res.once('close', () => {
    if (!res.writableFinished) aborts.abort(new Error('the client closed the connection'));
  });
}

/**
 * Writes a web `Response` to node:http: a JSON answer in one write, an SSE stream chunk by chunk
 * until either side ends it. Resolves once the body is written (for a stream, when it ends).
 */
export async function sendWebResponse(response: Response, res: ServerResponse): Promise<void> {
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    headers[name] = value;
  });
  const stream = (headers['content-type'] ?? '').startsWith('text/event-stream') ? response.body : null;
  if (!stream) {
    // Read as bytes, never as a stream: the standalone file's Response (light-web-classes.ts)
    // then hands over the text it was made with, no stream in between.
    const body = Buffer.from(await response.arrayBuffer());
    if (body.length > 0) headers['content-length'] = String(body.length);
    res.writeHead(response.status, headers).end(body);
    return;
  }
  res.writeHead(response.status, headers);
  res.flushHeaders();
  await pipeStream(stream, res);
}

async function pipeStream(body: ReadableStream<Uint8Array>, res: ServerResponse): Promise<void> {
  const reader = body.getReader();
  const stop = (): void => void reader.cancel().catch(() => undefined);
  res.once('close', stop);
  try {
    for (;;) {
      const { value, done } = await reader.read();
      if (done || res.destroyed) break;
      res.write(value);
    }
  } catch {
    // The stream was cancelled because the client went away.
  } finally {
    res.off('close', stop);
    if (!res.writableEnded) res.end();
  }
}
