import type { IncomingMessage, ServerResponse } from 'node:http';
import { isInitializeRequest, isJsonContentType } from '@modelcontextprotocol/server';
import type { Logger } from '../../application/ports/logger';
import { errorBody } from './control-api';
import { bearerMatches, type LoopbackGuard } from './http-guards';
import type { LegacyHttpSessions } from './legacy-http-sessions';
import { headerValue, speaksLegacy } from './mcp-era';
import type { ModernHttpEndpoint } from './modern-http-endpoint';
import { sessionRequest, toWebRequest } from './web-exchange';

const MCP_BODY_LIMIT = 8 * 1024 * 1024;
const SESSION_NOT_FOUND = { jsonrpc: '2.0', error: { code: -32001, message: 'Session not found' }, id: null };
const NO_SESSION = { jsonrpc: '2.0', error: { code: -32000, message: 'Bad Request: no valid session id' }, id: null };
const PARSE_ERROR = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null };
const TOO_LARGE = { jsonrpc: '2.0', error: { code: -32600, message: 'Request body is larger than 8 MiB' }, id: null };
const INTERNAL = { jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null };

/**
 * `/mcp` on node:http, every request checked the same way whatever its era: Host and Origin
 * (403), then the bearer MCP token (401), then the body (a JSON POST body is parsed here once).
 * The SDK's own classifier then sends 2025 traffic to the sessions and 2026-07-28 traffic to
 * the stateless endpoint. Plain node:http rather than express: the MCP hop is on every call.
 */
export class McpEndpoint {
  constructor(
    private readonly guard: LoopbackGuard,
    private readonly token: string,
    private readonly sessions: LegacyHttpSessions,
    private readonly modern: ModernHttpEndpoint,
    private readonly logger: Logger,
  ) {}

  handle(req: IncomingMessage, res: ServerResponse): void {
    if (!this.guard.hostAllowed(req.headers.host)) return send(res, 403, errorBody('FORBIDDEN', 'Host not allowed'));
    if (!this.guard.originAllowed(req.headers.origin)) return send(res, 403, errorBody('FORBIDDEN', 'Origin not allowed'));
    if (!bearerMatches(req.headers.authorization, this.token)) {
      // One refusal body for both tokens, so a caller without one learns nothing about which endpoint it hit.
      res.setHeader('www-authenticate', 'Bearer');
      return send(res, 401, errorBody('UNAUTHORIZED', 'missing or invalid bearer token'));
    }
    if (req.method !== 'POST' || !isJsonContentType(req.headers['content-type'] ?? null)) {
      // The SDK answers a POST that is not JSON (415) and every other method itself.
      req.resume();
      void this.dispatch(req, res, undefined);
      return;
    }
    readBody(req, (outcome) => {
      if (outcome === 'too-large') return send(res, 413, TOO_LARGE);
      let body: unknown;
      try {
        body = outcome.length === 0 ? undefined : JSON.parse(outcome);
      } catch {
        return send(res, 400, PARSE_ERROR);
      }
      void this.dispatch(req, res, body);
    });
  }

  private async dispatch(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    try {
      if (!speaksLegacy(req, body)) return await this.modern.handle(req, res, body);
      const sessionId = headerValue(req, 'mcp-session-id');
      const origin = `http://${req.headers.host}`;
      if (sessionId !== undefined) {
        if (!this.sessions.has(sessionId)) return send(res, 404, SESSION_NOT_FOUND);
        // A POST whose body the SDK would read itself (not JSON, or empty) gets a whole Request.
        const request = req.method === 'POST' && body === undefined ? toWebRequest(req, res, origin) : sessionRequest(req, res, origin);
        return await this.sessions.handle(sessionId, request, res, body);
      }
      if (req.method === 'POST' && isInitializeRequest(body)) return await this.sessions.open(sessionRequest(req, res, origin), res, body);
      send(res, 400, NO_SESSION);
    } catch (error) {
      this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'MCP request failed');
      if (!res.headersSent) send(res, 500, INTERNAL);
    }
  }
}

function readBody(req: IncomingMessage, done: (outcome: string | 'too-large') => void): void {
  const declared = Number(req.headers['content-length']);
  if (declared > MCP_BODY_LIMIT) {
    req.resume();
    done('too-large');
    return;
  }
  const chunks: Buffer[] = [];
  let size = 0;
  let over = false;
  req.on('data', (chunk: Buffer) => {
    size += chunk.length;
    if (size > MCP_BODY_LIMIT) over = true;
    else chunks.push(chunk);
  });
  req.once('end', () => done(over ? 'too-large' : Buffer.concat(chunks, size).toString('utf8')));
}

function send(res: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}
