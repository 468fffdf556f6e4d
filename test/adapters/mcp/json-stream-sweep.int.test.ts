import { randomUUID } from 'node:crypto';
import { createServer, type Server as HttpServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { ListToolsRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { jsonStreamCount, sweepAnsweredJsonStreams } from '../../../src/adapters/mcp/json-stream-sweep';

/** One JSON-response MCP session over node:http; `sweep` says whether POSTs are swept after. */
async function serve(sweep: boolean): Promise<{ http: HttpServer; transport: StreamableHTTPServerTransport; url: string }> {
  const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true });
  const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [] }));
  await server.connect(transport);
  const http = createServer((req, res) => {
    void transport.handleRequest(req, res).then(() => {
      if (sweep && req.method === 'POST') sweepAnsweredJsonStreams(transport);
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return { http, transport, url: `http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp` };
}

async function listTwentyTimes(url: string): Promise<Client> {
  const client = new Client({ name: 'c', version: '1' });
  await client.connect(new StreamableHTTPClientTransport(new URL(url)));
  for (let i = 0; i < 20; i++) await client.listTools();
  return client;
}

describe('sweepAnsweredJsonStreams', () => {
  it.each([
    [false, 'the SDK keeps one entry per answered POST'],
    [true, 'the sweep leaves none once answered'],
  ])('sweep=%s: %s', async (sweep) => {
    const { http, transport, url } = await serve(sweep);
    const client = await listTwentyTimes(url);
    try {
      if (sweep) expect(jsonStreamCount(transport)).toBe(0);
      else expect(jsonStreamCount(transport)).toBeGreaterThanOrEqual(20);
    } finally {
      await client.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
