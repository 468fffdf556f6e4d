import type { IncomingMessage } from 'node:http';
import { classifyInboundRequest } from '@modelcontextprotocol/server';

/**
 * Whether a request is 2025-era traffic, by the SDK's own classifier: it has no per-request
 * `_meta` claim of a revision (an `initialize`, a session's requests, GET and DELETE). Anything
 * else, including what the 2026-07-28 path refuses, belongs to that path.
 */
export function speaksLegacy(req: IncomingMessage, body: unknown): boolean {
  const outcome = classifyInboundRequest({
    httpMethod: req.method ?? 'GET',
    protocolVersionHeader: headerValue(req, 'mcp-protocol-version'),
    mcpMethodHeader: headerValue(req, 'mcp-method'),
    mcpNameHeader: headerValue(req, 'mcp-name'),
    ...(body === undefined ? {} : { body }),
  });
  return outcome.kind === 'legacy';
}

export function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name];
  return Array.isArray(value) ? value[0] : value;
}
