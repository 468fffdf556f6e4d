import type { Logger } from '../../../application/ports/logger';

/** The most bytes one message from a server may take (MCP's stdio transport: one JSON-RPC message per line). */
export const MAX_MESSAGE_BYTES = 8 * 1024 * 1024;
/** How much of each end of an over-long line is kept, to find which request it answered. */
const KEPT_END_BYTES = 1024;
const METHOD_NOT_FOUND = -32601;

/** Why a request got no result. */
export type McpRequestFailure =
  { kind: 'error'; code: number; message: string } | { kind: 'timeout' } | { kind: 'cancelled' } | { kind: 'closed' } | { kind: 'too_large' };

export class McpRequestError extends Error {
  constructor(readonly failure: McpRequestFailure) {
    super(describeFailure(failure));
    this.name = 'McpRequestError';
  }
}

export interface RequestOptions {
  timeoutMs: number;
  signal?: AbortSignal;
}

type JsonRpcId = number | string;
interface Pending {
  resolve: (result: unknown) => void;
  reject: (error: McpRequestError) => void;
}

/**
 * The host's MCP client over one server's stdio: JSON-RPC 2.0, one message per line. Requests
 * are multiplexed by id; a request that times out or is aborted is given up with
 * `notifications/cancelled` to the server. A request from the server is answered -32601 (the
 * host declares no client capabilities, so it offers nothing a server could ask for), a
 * notification goes to `onNotification`. Lines are cut at MAX_MESSAGE_BYTES: an over-long answer
 * fails its request as too large without the host holding it. Never logs message contents.
 */
export class McpStdioClient {
  private readonly pending = new Map<JsonRpcId, Pending>();
  private nextId = 1;
  private closed = false;
  private chunks: Buffer[] = [];
  private buffered = 0;
  /** Set while an over-long line is being skipped: its first bytes, and the last ones seen. */
  private overLong: { head: Buffer; tail: Buffer } | null = null;
  private notificationListener: (method: string, params: unknown) => void = () => undefined;

  constructor(
    private readonly logger: Logger,
    private write: ((line: string) => void) | null = null,
  ) {}

  /** Where messages to the server go (the child's stdin), once it is spawned. */
  attach(write: (line: string) => void): void {
    this.write = write;
  }

  onNotification(listener: (method: string, params: unknown) => void): void {
    this.notificationListener = listener;
  }

  /** Feeds bytes the server wrote on stdout; copies what it keeps. */
  push(chunk: Buffer): void {
    let start = 0;
    for (let newline = chunk.indexOf(10, start); newline !== -1; newline = chunk.indexOf(10, start)) {
      this.take(chunk.subarray(start, newline));
      this.endLine();
      start = newline + 1;
    }
    if (start < chunk.length) this.take(chunk.subarray(start));
  }

  /** Sends a request and resolves with its `result`; rejects with McpRequestError. */
  request(method: string, params: unknown, options: RequestOptions): Promise<unknown> {
    if (this.closed) return Promise.reject(new McpRequestError({ kind: 'closed' }));
    if (options.signal?.aborted) return Promise.reject(new McpRequestError({ kind: 'cancelled' }));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      const finish = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', abort);
        this.pending.delete(id);
      };
      const giveUp = (failure: McpRequestFailure, reason: string): void => {
        finish();
        this.notify('notifications/cancelled', { requestId: id, reason });
        reject(new McpRequestError(failure));
      };
      const timer = setTimeout(() => giveUp({ kind: 'timeout' }, 'the host gave up waiting'), options.timeoutMs);
      const abort = (): void => giveUp({ kind: 'cancelled' }, 'the caller cancelled');
      options.signal?.addEventListener('abort', abort, { once: true });
      this.pending.set(id, {
        resolve: (result) => (finish(), resolve(result)),
        reject: (error) => (finish(), reject(error)),
      });
      this.send({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) });
    });
  }

  notify(method: string, params?: unknown): void {
    if (this.closed) return;
    this.send({ jsonrpc: '2.0', method, ...(params === undefined ? {} : { params }) });
  }

  /** The server is gone: every request in flight fails as closed, later ones at once. */
  close(): void {
    if (this.closed) return;
    this.closed = true;
    for (const pending of [...this.pending.values()]) pending.reject(new McpRequestError({ kind: 'closed' }));
    this.pending.clear();
  }

  get inFlight(): number {
    return this.pending.size;
  }

  private send(message: object): void {
    this.write?.(`${JSON.stringify(message)}\n`);
  }

  private take(part: Buffer): void {
    if (part.length === 0) return;
    if (this.overLong) {
      this.overLong.tail = keepTail(this.overLong.tail, part);
      return;
    }
    if (this.buffered + part.length > MAX_MESSAGE_BYTES) {
      const line = Buffer.concat([...this.chunks, part]);
      this.overLong = { head: Buffer.from(line.subarray(0, KEPT_END_BYTES)), tail: Buffer.from(line.subarray(-KEPT_END_BYTES)) };
      this.chunks = [];
      this.buffered = 0;
      return;
    }
    this.chunks.push(Buffer.from(part));
    this.buffered += part.length;
  }

  private endLine(): void {
    if (this.overLong) {
      const { head, tail } = this.overLong;
      this.overLong = null;
      this.refuseOverLong(head, tail);
      return;
    }
    const line = Buffer.concat(this.chunks).toString('utf8').trim();
    this.chunks = [];
    this.buffered = 0;
    if (line === '') return;
    let message: unknown;
    try {
      message = JSON.parse(line);
    } catch {
      this.logger.debug({ bytes: line.length }, 'MCP server wrote a line that is not JSON on stdout; ignored');
      return;
    }
    for (const one of Array.isArray(message) ? (message as unknown[]) : [message]) this.receive(one);
  }

  private receive(message: unknown): void {
    if (typeof message !== 'object' || message === null) return;
    const { id, method, params, result, error } = message as { id?: unknown; method?: unknown; params?: unknown; result?: unknown; error?: unknown };
    const hasId = typeof id === 'number' || typeof id === 'string';
    if (typeof method === 'string') {
      if (hasId) this.send({ jsonrpc: '2.0', id, error: { code: METHOD_NOT_FOUND, message: `the host offers no ${method}` } });
      else this.notificationListener(method, params);
      return;
    }
    if (!hasId) return;
    const pending = this.pending.get(id);
    if (!pending) return;
    if (error !== undefined && error !== null) {
      const { code, message: text } = error as { code?: unknown; message?: unknown };
      pending.reject(new McpRequestError({ kind: 'error', code: typeof code === 'number' ? code : 0, message: typeof text === 'string' ? text : '' }));
    } else pending.resolve(result);
  }

  /** An answer over the limit fails its request (found by the `id` at either end) without being parsed. */
  private refuseOverLong(head: Buffer, tail: Buffer): void {
    const id = idIn(tail.toString('utf8')) ?? idIn(head.toString('utf8'));
    this.logger.warn({ limit_bytes: MAX_MESSAGE_BYTES }, 'MCP server wrote a message over the limit; dropped');
    const pending = id === undefined ? undefined : this.pending.get(id);
    pending?.reject(new McpRequestError({ kind: 'too_large' }));
  }
}

function keepTail(tail: Buffer, part: Buffer): Buffer {
  const joined = Buffer.concat([tail, part]);
  return Buffer.from(joined.subarray(Math.max(0, joined.length - KEPT_END_BYTES)));
}

/** The request id a response's text names, found as `"id": N` or `"id": "S"` outside any value the host cannot see. */
function idIn(text: string): JsonRpcId | undefined {
  const matches = [...text.matchAll(/"id"\s*:\s*(\d+|"[^"\\]*")/g)];
  const last = matches[matches.length - 1]?.[1];
  if (last === undefined) return undefined;
  return last.startsWith('"') ? last.slice(1, -1) : Number(last);
}

function describeFailure(failure: McpRequestFailure): string {
  switch (failure.kind) {
    case 'error':
      return `JSON-RPC error ${failure.code}: ${failure.message}`;
    case 'timeout':
      return 'no answer in time';
    case 'cancelled':
      return 'cancelled';
    case 'closed':
      return 'the server closed its connection';
    case 'too_large':
      return `its answer was over ${MAX_MESSAGE_BYTES} bytes`;
  }
}
