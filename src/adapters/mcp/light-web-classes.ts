/**
 * Small `Headers`, `Request` and `Response` classes for the standalone agentctl file
 * (docs/agentctl.md, "An agentctl in the agent's container"): scripts/build-agentctl.js
 * injects them for those three global names, so the MCP SDK's HTTP transports and
 * web-exchange.ts use these instead of Node's. Node's own are undici's, which its first use
 * loads whole: about 9 MB resident in an agentctl that only ever needs a header map, a method,
 * a URL, a signal and a body it hands to node:http (bench/PROFILE.md §7).
 *
 * They keep what that exchange needs of the web classes: case-insensitive headers, a request
 * whose body the caller parsed already (so it has none, or a text one), a response whose body is
 * text, bytes, JSON or a `ReadableStream` (the SDK's SSE streams), read once.
 * Everything else a real `Request`/`Response` has is absent.
 */
type HeaderSource = LightHeaders | Record<string, string | readonly string[] | undefined> | Iterable<readonly [string, string]>;

export class LightHeaders {
  private readonly map = new Map<string, string>();

  constructor(init?: HeaderSource) {
    if (init === undefined) return;
    if (init instanceof LightHeaders) {
      init.forEach((value, name) => this.map.set(name, value));
    } else if (Symbol.iterator in init) {
      for (const [name, value] of init as Iterable<readonly [string, string]>) this.append(name, value);
    } else {
      for (const [name, value] of Object.entries(init)) {
        if (value !== undefined) this.append(name, typeof value === 'string' ? value : value.join(', '));
      }
    }
  }

  get(name: string): string | null {
    return this.map.get(name.toLowerCase()) ?? null;
  }

  has(name: string): boolean {
    return this.map.has(name.toLowerCase());
  }

  set(name: string, value: string): void {
    this.map.set(name.toLowerCase(), String(value));
  }

  append(name: string, value: string): void {
    const key = name.toLowerCase();
    const held = this.map.get(key);
    this.map.set(key, held === undefined ? String(value) : `${held}, ${value}`);
  }

  delete(name: string): void {
    this.map.delete(name.toLowerCase());
  }

  forEach(visit: (value: string, name: string, headers: LightHeaders) => void): void {
    for (const [name, value] of this.entries()) visit(value, name, this);
  }

  /** In name order, as the web class iterates. */
  entries(): IterableIterator<[string, string]> {
    return [...this.map].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))[Symbol.iterator]();
  }

  keys(): IterableIterator<string> {
    return [...this.entries()].map(([name]) => name)[Symbol.iterator]();
  }

  values(): IterableIterator<string> {
    return [...this.entries()].map(([, value]) => value)[Symbol.iterator]();
  }

  [Symbol.iterator](): IterableIterator<[string, string]> {
    return this.entries();
  }
}

type BodySource = string | Uint8Array | ArrayBuffer | ReadableStream<Uint8Array> | null | undefined;

/** A body read at most once, kept as given until someone reads it. */
class OneBody {
  private used = false;
  private stream: ReadableStream<Uint8Array> | null | undefined;

  constructor(private readonly source: BodySource) {}

  get bodyUsed(): boolean {
    return this.used;
  }

  /** A stream only when someone asks for one (the exchange mostly reads bytes). */
  get body(): ReadableStream<Uint8Array> | null {
    if (this.stream === undefined) this.stream = this.source === null || this.source === undefined ? null : toStream(this.source);
    return this.stream;
  }

  async bytes(): Promise<Uint8Array> {
    if (this.used) throw new TypeError('Body has already been read');
    this.used = true;
    const source = this.stream ?? this.source;
    if (source === null || source === undefined) return new Uint8Array(0);
    if (typeof source === 'string') return Buffer.from(source, 'utf8');
    if (source instanceof Uint8Array) return source;
    if (source instanceof ArrayBuffer) return new Uint8Array(source);
    const chunks: Uint8Array[] = [];
    const reader = source.getReader();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      chunks.push(value);
    }
    return Buffer.concat(chunks);
  }

  /** The same body again, for a clone (a stream is teed, as the web classes do). */
  copy(): OneBody {
    if (this.used) throw new TypeError('Body has already been read');
    if (this.stream) {
      const [mine, theirs] = this.stream.tee();
      this.stream = mine;
      return new OneBody(theirs);
    }
    return new OneBody(this.source);
  }
}

function toStream(source: Exclude<BodySource, null | undefined>): ReadableStream<Uint8Array> {
  if (typeof source !== 'string' && !(source instanceof Uint8Array) && !(source instanceof ArrayBuffer)) return source;
  const bytes = typeof source === 'string' ? Buffer.from(source, 'utf8') : source instanceof Uint8Array ? source : new Uint8Array(source);
  return new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
}

abstract class WithBody {
  protected content: OneBody;

  protected constructor(content: OneBody) {
    this.content = content;
  }

  get body(): ReadableStream<Uint8Array> | null {
    return this.content.body;
  }

  get bodyUsed(): boolean {
    return this.content.bodyUsed;
  }

  async arrayBuffer(): Promise<ArrayBuffer> {
    const bytes = await this.content.bytes();
    return bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer;
  }

  async text(): Promise<string> {
    return Buffer.from(await this.content.bytes()).toString('utf8');
  }

  async json(): Promise<unknown> {
    return JSON.parse(await this.text());
  }
}

export interface LightRequestInit {
  method?: string;
  headers?: HeaderSource;
  body?: BodySource;
  signal?: AbortSignal;
}

export class LightRequest extends WithBody {
  readonly url: string;
  readonly method: string;
  readonly headers: LightHeaders;
  readonly signal: AbortSignal;

  constructor(url: string | URL, init: LightRequestInit = {}) {
    super(new OneBody(init.body));
    // As the web class: an absolute URL, normalised; a malformed one throws TypeError.
    this.url = new URL(String(url)).href;
    this.method = (init.method ?? 'GET').toUpperCase();
    this.headers = new LightHeaders(init.headers);
    this.signal = init.signal ?? new AbortController().signal;
  }

  clone(): LightRequest {
    const copy = new LightRequest(this.url, { method: this.method, headers: this.headers, signal: this.signal });
    copy.content = this.content.copy();
    return copy;
  }
}

export interface LightResponseInit {
  status?: number;
  statusText?: string;
  headers?: HeaderSource;
}

export class LightResponse extends WithBody {
  readonly status: number;
  readonly statusText: string;
  readonly headers: LightHeaders;

  constructor(body?: BodySource, init: LightResponseInit = {}) {
    super(new OneBody(body));
    this.status = init.status ?? 200;
    if (!Number.isInteger(this.status) || this.status < 200 || this.status > 599) throw new RangeError(`invalid response status ${this.status}`);
    this.statusText = init.statusText ?? '';
    this.headers = new LightHeaders(init.headers);
    if (typeof body === 'string' && !this.headers.has('content-type')) this.headers.set('content-type', 'text/plain;charset=UTF-8');
  }

  get ok(): boolean {
    return this.status >= 200 && this.status < 300;
  }

  static json(data: unknown, init: LightResponseInit = {}): LightResponse {
    const headers = new LightHeaders(init.headers);
    if (!headers.has('content-type')) headers.set('content-type', 'application/json');
    return new LightResponse(JSON.stringify(data), { ...init, headers });
  }
}

export { LightHeaders as Headers, LightRequest as Request, LightResponse as Response };
