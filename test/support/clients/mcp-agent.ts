import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { RequestOptions } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** An agent on one MCP endpoint, with the official client over Streamable HTTP, counting list_changed. */
export interface McpAgent {
  client: Client;
  /** When each list_changed arrived (performance.now(), ms). */
  listChangedAt: number[];
  listChanged(): number;
  /** Resolves once `count` list_changed have arrived; rejects after `timeoutMs`. */
  waitForListChanged(count: number, timeoutMs?: number): Promise<void>;
  tools(): Promise<Tool[]>;
  toolNames(): Promise<string[]>;
  /** `tools/call`; `options` carries a per-call timeout or an abort signal (which sends notifications/cancelled). */
  call(name: string, args?: Record<string, unknown>, options?: RequestOptions): Promise<CallToolResult>;
  /** Ends the MCP session and the client; a server already gone is fine. */
  close(): Promise<void>;
}

export async function connectAgent(url: string, token: string, name = 'e2e-agent'): Promise<McpAgent> {
  const client = new Client({ name, version: '1.0.0' });
  const listChangedAt: number[] = [];
  const waiters = new Set<() => void>();
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChangedAt.push(performance.now());
    for (const wake of waiters) wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(url), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  return {
    client,
    listChangedAt,
    listChanged: () => listChangedAt.length,
    async waitForListChanged(count, timeoutMs = 5000) {
      if (listChangedAt.length >= count) return;
      await new Promise<void>((resolve, reject) => {
        const wake = (): void => {
          if (listChangedAt.length < count) return;
          clearTimeout(timer);
          waiters.delete(wake);
          resolve();
        };
        const timer = setTimeout(() => {
          waiters.delete(wake);
          reject(new Error(`expected ${count} list_changed, got ${listChangedAt.length}`));
        }, timeoutMs);
        waiters.add(wake);
      });
    },
    tools: async () => (await client.listTools()).tools,
    toolNames: async () => (await client.listTools()).tools.map((tool) => tool.name),
    call: async (tool, args = {}, options) => (await client.callTool({ name: tool, arguments: args }, undefined, options)) as CallToolResult,
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
}

/** The text of a tool result's first content item. */
export function resultText(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}
