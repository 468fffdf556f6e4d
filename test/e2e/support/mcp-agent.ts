import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema, type CallToolResult, type Tool } from '@modelcontextprotocol/sdk/types.js';

/** An agent connected to one agentctl with the official MCP client, counting list_changed. */
export interface McpAgent {
  client: Client;
  /** list_changed notifications received so far, with the time each arrived. */
  listChangedAt: number[];
  listChanged(): number;
  /** Resolves once `count` list_changed have arrived; rejects after `timeoutMs`. */
  waitForListChanged(count: number, timeoutMs?: number): Promise<void>;
  tools(): Promise<Tool[]>;
  toolNames(): Promise<string[]>;
  call(name: string, args?: Record<string, unknown>): Promise<CallToolResult>;
  close(): Promise<void>;
}

export async function connectAgent(mcpUrl: string, token: string): Promise<McpAgent> {
  const client = new Client({ name: 'e2e-agent', version: '1.0.0' });
  const listChangedAt: number[] = [];
  const waiters: Array<() => void> = [];
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    listChangedAt.push(Date.now());
    for (const wake of waiters.splice(0)) wake();
  });
  const transport = new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { Authorization: `Bearer ${token}` } } });
  await client.connect(transport);
  const agent: McpAgent = {
    client,
    listChangedAt,
    listChanged: () => listChangedAt.length,
    async waitForListChanged(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (listChangedAt.length < count) {
        const left = deadline - Date.now();
        if (left <= 0) throw new Error(`expected ${count} list_changed, got ${listChangedAt.length}`);
        await new Promise<void>((wake) => {
          const timer = setTimeout(wake, left);
          waiters.push(() => {
            clearTimeout(timer);
            wake();
          });
        });
      }
    },
    async tools() {
      return (await client.listTools()).tools;
    },
    async toolNames() {
      return (await client.listTools()).tools.map((tool) => tool.name);
    },
    async call(name, args = {}) {
      return (await client.callTool({ name, arguments: args })) as CallToolResult;
    },
    async close() {
      await transport.terminateSession().catch(() => undefined);
      await client.close().catch(() => undefined);
    },
  };
  return agent;
}

/** The text of a tool result's first content item. */
export function resultText(result: CallToolResult): string {
  const first = result.content[0];
  return first && first.type === 'text' ? first.text : '';
}
