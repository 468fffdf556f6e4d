import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { CallTool } from '../../application/agentctl/call-tool';
import type { ListTools } from '../../application/agentctl/list-tools';
import type { ToolRegistry } from '../../application/agentctl/tool-registry';
import type { Logger } from '../../application/ports/logger';
import { createMcpToolServer } from './mcp-tool-server';
import { ToolListNotifier } from './tool-list-notifier';

export interface McpStdioServerDeps {
  listTools: ListTools;
  callTool: CallTool;
  registry: ToolRegistry;
  logger: Logger;
  version: string;
}

/** MCP over this process's stdin/stdout: stdout carries protocol only (logs go to stderr). */
export class McpStdioServer {
  private readonly notifier: ToolListNotifier;
  private readonly server: Server;
  private readonly closed: Promise<void>;
  private markClosed!: () => void;

  constructor(
    deps: McpStdioServerDeps,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.notifier = new ToolListNotifier(deps.registry, deps.logger);
    this.server = createMcpToolServer({ listTools: deps.listTools, callTool: deps.callTool, version: deps.version });
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
  }

  async start(): Promise<void> {
    const transport = new StdioServerTransport(this.stdin as never, this.stdout as never);
    this.notifier.add('stdio', this.server, true);
    this.server.oninitialized = () => this.notifier.initialized('stdio');
    this.server.onclose = () => this.markClosed();
    // The client going away (stdin ends) ends the session.
    this.stdin.once('end', () => void this.server.close());
    await this.server.connect(transport);
  }

  /** Resolves when the MCP client went away or close() was called. */
  whenClosed(): Promise<void> {
    return this.closed;
  }

  async close(): Promise<void> {
    this.notifier.close();
    await this.server.close().catch(() => undefined);
  }
}
