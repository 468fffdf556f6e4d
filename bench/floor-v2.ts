/**
 * The SDK v2 floor: its low-level `Server` with one static echo tool, both eras on one
 * endpoint as the SDK documents it (its classifier routes 2025 traffic to stateful
 * web-standard sessions, 2026-07-28 traffic to `createMcpHandler`), on plain node:http with no
 * guards, token or express. It tells the eras apart and crosses node:http and web
 * Request/Response with agentctl's own functions, so what differs from agentctl is agentctl's
 * own work.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createMcpHandler, isInitializeRequest, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { headerValue, speaksLegacy } from '../src/adapters/mcp/mcp-era';
import { sendWebResponse, toWebRequest } from '../src/adapters/mcp/web-exchange';
import { ECHO_TOOL, echoResult, readJson } from './floor-parts';

function echoServer(): Server {
  const server = new Server({ name: 'floor-v2', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler('tools/list', async () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler('tools/call', async (request) => echoResult(request.params.arguments));
  return server;
}

/** Listens on 127.0.0.1 (port 0) and resolves with the port. */
export async function startV2Floor(): Promise<number> {
  const modern = createMcpHandler(echoServer, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const request = toWebRequest(req, res, `http://${req.headers.host}`);
      if (!speaksLegacy(req, body)) return sendWebResponse(await modern.fetch(request, { parsedBody: body }), res);
      const known = sessions.get(headerValue(req, 'mcp-session-id') ?? '');
      if (known) return sendWebResponse(await known.handleRequest(request, { parsedBody: body }), res);
      if (req.method === 'POST' && isInitializeRequest(body)) {
        const transport: WebStandardStreamableHTTPServerTransport = new WebStandardStreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          enableJsonResponse: true,
          onsessioninitialized: (id) => void sessions.set(id, transport),
        });
        transport.onclose = () => transport.sessionId && sessions.delete(transport.sessionId);
        await echoServer().connect(transport);
        return sendWebResponse(await transport.handleRequest(request, { parsedBody: body }), res);
      }
      res.writeHead(400).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  return (http.address() as AddressInfo).port;
}
