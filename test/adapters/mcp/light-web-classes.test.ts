import { LightHeaders, LightRequest, LightResponse } from '../../../src/adapters/mcp/light-web-classes';

// Each scenario runs on Node's own classes and on the light ones, which must answer the same:
// what the MCP SDK and web-exchange.ts would have got from the web classes.
type Classes = { Headers: typeof Headers; Request: typeof Request; Response: typeof Response };
const web: Classes = { Headers, Request, Response };
const light = { Headers: LightHeaders, Request: LightRequest, Response: LightResponse } as unknown as Classes;

function streamOf(...parts: string[]): ReadableStream<Uint8Array> {
  return new ReadableStream<Uint8Array>({
    start(controller) {
      for (const part of parts) controller.enqueue(new TextEncoder().encode(part));
      controller.close();
    },
  });
}

const scenarios: Record<string, (c: Classes) => Promise<unknown>> = {
  'headers are case-insensitive, append joins with a comma, iterate lower-cased in name order': async (c) => {
    const headers = new c.Headers({ 'Content-Type': 'application/json', Accept: 'a, b' });
    headers.append('X-Two', '1');
    headers.append('x-two', '2');
    headers.set('Mcp-Session-Id', 's1');
    const got = [headers.get('content-type'), headers.get('CONTENT-TYPE'), headers.has('x-TWO'), headers.get('x-two'), headers.get('missing'), [...headers]];
    headers.delete('X-TWO');
    const seen: string[] = [];
    new c.Headers(headers).forEach((value, name) => seen.push(`${name}=${value}`));
    return [
      ...got,
      seen,
      [
        ...new c.Headers([
          ['B', '2'],
          ['a', '1'],
        ]),
      ],
    ];
  },
  'a request has an absolute normalised URL, an upper-case method, its headers, signal and body': async (c) => {
    const aborts = new AbortController();
    const init = { method: 'post', headers: { Host: '127.0.0.1' }, signal: aborts.signal, body: '{"a":1}' };
    const request = new c.Request('http://127.0.0.1:7900/mcp?x=1', init);
    aborts.abort(new Error('gone'));
    const copy = request.clone();
    return [request.url, request.method, request.headers.get('host'), request.signal.aborted, await copy.text(), await request.json(), request.bodyUsed];
  },
  'a request without a body has none and reads as empty': async (c) => {
    const request = new c.Request('http://h/mcp', { method: 'GET' });
    return [request.body, await request.text(), request.signal.aborted];
  },
  'Response.json answers the JSON with its content type, status and extra headers': async (c) => {
    const response = c.Response.json({ jsonrpc: '2.0', id: 1 }, { status: 404, headers: { 'mcp-session-id': 's' } });
    return [response.status, response.ok, response.headers.get('content-type'), response.headers.get('mcp-session-id'), await response.json()];
  },
  'a text body has a text content type and reads once': async (c) => {
    const text = new c.Response('héllo', { status: 202, statusText: 'Accepted' });
    const got = [text.status, text.statusText, text.headers.get('content-type'), Buffer.from(await text.arrayBuffer()).toString('utf8'), text.bodyUsed];
    const again = await text.text().then(
      () => 'read twice',
      (error: unknown) => (error as Error).name,
    );
    return [...got, again];
  },
  'a bytes body, no body, a stream body': async (c) => {
    const bytes = await new c.Response(new Uint8Array([104, 105])).text();
    const empty = new c.Response(null, { status: 202 });
    const nothing = [empty.body, (await empty.arrayBuffer()).byteLength];
    const streamed = new c.Response(streamOf('data: 1\n\n', 'data: 2\n\n'), { headers: { 'content-type': 'text/event-stream' } });
    const reader = streamed.body!.getReader();
    const first = new TextDecoder().decode((await reader.read()).value);
    const whole = await new c.Response(streamOf('a', 'b')).text();
    return [bytes, nothing, first, whole];
  },
  'a response made from another keeps its status, status text and headers': async (c) => {
    const original = c.Response.json({ a: 1 }, { status: 499, headers: { 'x-a': '1' } });
    const again = new c.Response(original.body, { status: original.status, statusText: original.statusText, headers: original.headers });
    return [again.status, again.statusText, again.headers.get('x-a'), again.headers.get('content-type'), await again.json()];
  },
  'refuse a relative URL and a status outside 200–599': async (c) => [
    thrownBy(() => new c.Request('/mcp')),
    thrownBy(() => new c.Response(null, { status: 99 })),
  ],
};

/** The error's name: Node's classes throw from another realm than jest's, so no instanceof. */
function thrownBy(make: () => unknown): string {
  try {
    make();
    return 'nothing';
  } catch (error) {
    return (error as Error).name;
  }
}

describe('the light Headers, Request and Response', () => {
  it.each(Object.keys(scenarios))('%s, as the web classes', async (name) => {
    expect(await scenarios[name]!(light)).toEqual(await scenarios[name]!(web));
  });
});
