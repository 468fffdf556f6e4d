/**
 * The SDK v2 floor: its low-level `Server` with one static echo tool, both eras on one
 * endpoint as the SDK documents it (its classifier routes 2025 traffic to stateful
 * web-standard sessions, 2026-07-28 traffic to `createMcpHandler`), on plain node:http with no
 * guards, token or express. It crosses node:http and web Request/Response with the same two
 * functions agentctl uses, so the difference to agentctl is agentctl's own work.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { classifyInboundRequest, createMcpHandler, isInitializeRequest, Server, WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server';
import { sendWebResponse, toWebRequest } from '../src/adapters/mcp/web-exchange';

const ECHO_TOOL = {
  name: 'echo',
  description: 'Answers its value.',
  inputSchema: { type: 'object' as const, properties: { value: { type: 'string' } }, required: ['value'] },
};

function echoServer(): Server {
  const server = new Server({ name: 'floor-v2', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler('tools/list', async () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler('tools/call', async (request) => ({
    content: [{ type: 'text', text: String((request.params.arguments as { value?: unknown } | undefined)?.value ?? '') }],
  }));
  return server;
}

function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}

function header(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** Listens on 127.0.0.1 (port 0) and resolves with the port. */
export async function startV2Floor(): Promise<number> {
  const modern = createMcpHandler(echoServer, { legacy: 'reject' });
  const sessions = new Map<string, WebStandardStreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const request = toWebRequest(req, res, `http://${req.headers.host}`);
      const route = classifyInboundRequest({
        httpMethod: req.method ?? 'GET',
        protocolVersionHeader: header(req, 'mcp-protocol-version'),
        mcpMethodHeader: header(req, 'mcp-method'),
        mcpNameHeader: header(req, 'mcp-name'),
        ...(body === undefined ? {} : { body }),
      });
      if (route.kind !== 'legacy') return sendWebResponse(await modern.fetch(request, { parsedBody: body }), res);
      const known = sessions.get(header(req, 'mcp-session-id') ?? '');
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
