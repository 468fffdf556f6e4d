import type { IncomingMessage, ServerResponse } from 'node:http';
import { createMcpHandler, type McpHttpHandler, type Server } from '@modelcontextprotocol/server';
import type { ToolRegistry } from '../../application/agentctl/tool-registry';
import type { Logger } from '../../application/ports/logger';
import { StatelessCancellations } from './stateless-cancellations';
import { sendWebResponse, toWebRequest } from './web-exchange';

/**
 * MCP 2026-07-28 over HTTP: stateless requests carrying the revision, client info and
 * capabilities in `params._meta`, `server/discover`, `subscriptions/listen`, the
 * `Mcp-Method`/`Mcp-Name` checks; all of it the SDK v2 entry's own (its 2025 leg is off:
 * 2025 traffic goes to the stateful sessions). Each effective change of the visible tools is
 * published once to every open `subscriptions/listen` stream; a stream opened later gets no
 * catch-up (the revision has none across streams).
 */
export class ModernHttpEndpoint {
  private readonly handler: McpHttpHandler;
  private readonly unsubscribe: () => void;
  private readonly cancellations = new StatelessCancellations();

  constructor(makeServer: () => Server, registry: ToolRegistry, logger: Logger) {
    this.handler = createMcpHandler(() => makeServer(), {
      legacy: 'reject',
      onerror: (error) => logger.debug({ err: error.message }, 'MCP 2026-07-28 request refused or failed'),
    });
    let told = registry.fingerprint();
    this.unsubscribe = registry.onSwap(() => {
      const current = registry.fingerprint();
      if (current === told) return;
      told = current;
      this.handler.notify.toolsChanged();
    });
  }

  async handle(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
    const message = (body && typeof body === 'object' && !Array.isArray(body) ? body : {}) as { id?: unknown; method?: unknown; params?: unknown };
    if (message.method === 'notifications/cancelled' && message.id === undefined) this.cancellations.cancel(message.params);
    const aborts = new AbortController();
    const forget = message.method === 'tools/call' ? this.cancellations.track(message.id, aborts) : undefined;
    try {
      const request = toWebRequest(req, res, `http://${req.headers.host}`, aborts);
      await sendWebResponse(await this.handler.fetch(request, body === undefined ? undefined : { parsedBody: body }), res);
    } finally {
      forget?.();
    }
  }

  async close(): Promise<void> {
    this.unsubscribe();
    await this.handler.close();
  }
}
