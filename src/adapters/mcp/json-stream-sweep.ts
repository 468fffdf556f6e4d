import type { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';

interface JsonModeInternals {
  _webStandardTransport?: {
    _streamMapping?: Map<string, { resolveJson?: unknown }>;
    _requestToStreamMapping?: Map<unknown, string>;
  };
}

/**
 * Works around an SDK 1.32 leak: in JSON response mode the transport never forgets the
 * per-POST stream entry once it answered (about 25 KB a request: an agentctl grew by 100 MB
 * over 10,000 calls). After a POST was handled, drop the JSON entries no request still waits
 * on. Reaches into the transport's internals; if they change, this does nothing and the
 * test that watches the entry count fails.
 */
export function sweepAnsweredJsonStreams(transport: StreamableHTTPServerTransport): void {
  const inner = (transport as unknown as JsonModeInternals)._webStandardTransport;
  const streams = inner?._streamMapping;
  const waiting = inner?._requestToStreamMapping;
  if (!streams || !waiting) return;
  const open = new Set(waiting.values());
  for (const [streamId, stream] of streams) {
    if (stream.resolveJson !== undefined && !open.has(streamId)) streams.delete(streamId);
  }
}

/** How many JSON stream entries the transport holds (for the test that guards the sweep). */
export function jsonStreamCount(transport: StreamableHTTPServerTransport): number {
  const streams = (transport as unknown as JsonModeInternals)._webStandardTransport?._streamMapping;
  return streams ? [...streams.values()].filter((stream) => stream.resolveJson !== undefined).length : -1;
}
