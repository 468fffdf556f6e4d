/**
 * The floors' servers, run as their own process so they do not share the bench's event loop:
 * the SDK's low-level MCP `Server` with one static echo tool over Streamable HTTP (stateful,
 * plain node:http, no guards), and a bare `ws` server that answers each JSON frame with a
 * JSON response frame; and the SDK v2 floor (floor-v2.ts). Prints one line:
 * {"mcp_url", "mcp_v2_url", "ws_url", "pid"}.
 */
import { randomUUID } from 'node:crypto';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { CallToolRequestSchema, ListToolsRequestSchema, isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import { WebSocketServer } from 'ws';
import { ECHO_TOOL, echoResult, readJson } from './floor-parts';
import { startV2Floor } from './floor-v2';

function echoServer(): Server {
  const server = new Server({ name: 'floor', version: '1.0.0' }, { capabilities: { tools: { listChanged: true } } });
  server.setRequestHandler(ListToolsRequestSchema, async () => ({ tools: [ECHO_TOOL] }));
  server.setRequestHandler(CallToolRequestSchema, async (request) => echoResult(request.params.arguments));
  return server;
}

async function main(): Promise<void> {
  const transports = new Map<string, StreamableHTTPServerTransport>();
  const http = createServer((req, res) => {
    void (async () => {
      const body = req.method === 'POST' ? await readJson(req) : undefined;
      const header = req.headers['mcp-session-id'];
      const sessionId = Array.isArray(header) ? header[0] : header;
      const known = sessionId === undefined ? undefined : transports.get(sessionId);
      if (known) return known.handleRequest(req, res, body);
      if (req.method === 'POST' && isInitializeRequest(body)) {
        const transport = new StreamableHTTPServerTransport({
          sessionIdGenerator: () => randomUUID(),
          onsessioninitialized: (id) => void transports.set(id, transport),
        });
        transport.onclose = () => transport.sessionId && transports.delete(transport.sessionId);
        await echoServer().connect(transport);
        return transport.handleRequest(req, res, body);
      }
      res.writeHead(400).end();
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500).end();
    });
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));

  const wss = new WebSocketServer({ host: '127.0.0.1', port: 0 });
  await new Promise<void>((resolve) => wss.once('listening', resolve));
  wss.on('connection', (socket) => {
    socket.on('message', (data) => {
      const frame = JSON.parse(String(data)) as { id: string; action: string; payload: unknown };
      socket.send(JSON.stringify({ id: frame.id, type: 'response', action: frame.action, payload: frame.payload }));
    });
  });

  const mcpPort = (http.address() as AddressInfo).port;
  const wsPort = (wss.address() as AddressInfo).port;
  const mcpV2Port = await startV2Floor();
  const ready = {
    mcp_url: `http://127.0.0.1:${mcpPort}/mcp`,
    mcp_v2_url: `http://127.0.0.1:${mcpV2Port}/mcp`,
    ws_url: `ws://127.0.0.1:${wsPort}`,
    pid: process.pid,
  };
  process.stdout.write(`${JSON.stringify(ready)}\n`);
  process.on('SIGTERM', () => process.exit(0));
  // Never outlive the bench, whatever way it ended.
  const parent = process.ppid;
  setInterval(() => process.ppid !== parent && process.exit(0), 500).unref();
}

void main();
