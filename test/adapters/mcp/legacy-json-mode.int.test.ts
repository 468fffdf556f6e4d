import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { sendWebResponse, toWebRequest } from '../../../src/adapters/mcp/web-exchange';

interface JsonModeInternals {
  _streamMapping: Map<string, unknown>;
  _requestToStreamMapping: Map<unknown, string>;
}

/**
 * SDK 1.32 kept one stream entry per answered JSON-mode POST (agentctl grew by 100 MB over
 * 10,000 calls) and agentctl swept them. The v2 transport it runs on now forgets each entry
 * once answered; this fails, and the sweep must come back, if that ever regresses.
 */
describe('SDK v2 session transport in JSON response mode', () => {
  it('holds no per-request entry once 50 POSTs were answered', async () => {
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: () => randomUUID(), enableJsonResponse: true });
    const server = new Server({ name: 't', version: '1' }, { capabilities: { tools: {} } });
    server.setRequestHandler('tools/list', async () => ({ tools: [] }));
    await server.connect(transport);
    const http = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        const request = toWebRequest(req, res, 'http://127.0.0.1');
        void transport.handleRequest(request, text ? { parsedBody: JSON.parse(text) } : undefined).then((response) => sendWebResponse(response, res));
      });
    });
    await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
    const client = new Client({ name: 'c', version: '1' });
    try {
      await client.connect(new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${(http.address() as AddressInfo).port}/mcp`)));
      for (let i = 0; i < 50; i++) await client.listTools();
      const internals = transport as unknown as JsonModeInternals;
      expect(internals._requestToStreamMapping.size).toBe(0);
      // At most the standalone GET stream the client may have opened.
      expect(internals._streamMapping.size).toBeLessThanOrEqual(1);
    } finally {
      await client.close();
      await server.close();
      http.closeAllConnections();
      await new Promise((resolve) => http.close(resolve));
    }
  });
});
