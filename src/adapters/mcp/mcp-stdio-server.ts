import type { Readable, Writable } from 'node:stream';
import type { Server } from '@modelcontextprotocol/server';
import { serveStdio, StdioServerTransport, type StdioServerHandle } from '@modelcontextprotocol/server/stdio';
import type { CallTool } from '../../application/agentctl/call-tool';
import type { ListTools } from '../../application/agentctl/list-tools';
import type { ToolRegistry } from '../../application/agentctl/tool-registry';
import type { Logger } from '../../application/ports/logger';
import type { ClientApprovals } from './client-approvals';
import { createMcpToolServer } from './mcp-tool-server';
import { ToolListNotifier } from './tool-list-notifier';

export interface McpStdioServerDeps {
  listTools: ListTools;
  callTool: CallTool;
  approvals: ClientApprovals;
  registry: ToolRegistry;
  logger: Logger;
  version: string;
}

/**
 * MCP over this process's stdin/stdout in either era: the SDK v2 stdio entry pins the
 * connection to the era its opening message names (an `initialize`, or a 2026-07-28 request
 * such as `server/discover`). stdout carries protocol only (logs go to stderr).
 *
 * Change notifications go to the serving instance: a 2025 one forwards them once initialized
 * (stdio is always listening), a 2026-07-28 one has the entry route them onto its open
 * `subscriptions/listen` streams (none open: nothing is sent).
 */
export class McpStdioServer {
  private readonly notifier: ToolListNotifier;
  private readonly closed: Promise<void>;
  private markClosed!: () => void;
  private handle: StdioServerHandle | undefined;
  private instances = 0;

  constructor(
    private readonly deps: McpStdioServerDeps,
    private readonly stdin: NodeJS.ReadableStream = process.stdin,
    private readonly stdout: NodeJS.WritableStream = process.stdout,
  ) {
    this.notifier = new ToolListNotifier(deps.registry, deps.logger);
    this.closed = new Promise((resolve) => (this.markClosed = resolve));
  }

  async start(): Promise<void> {
    const transport = new StdioServerTransport(this.stdin as Readable, this.stdout as Writable);
    // The client going away (stdin ends) ends the session.
    this.stdin.once('end', () => void this.close().finally(() => this.markClosed()));
    this.handle = serveStdio(({ era }) => this.instance(era), {
      transport,
      onerror: (error) => this.deps.logger.debug({ err: error.message }, 'MCP stdio message refused or failed'),
    });
  }

  /** Resolves when the MCP client went away or close() was called. */
  whenClosed(): Promise<void> {
    return this.closed;
  }

  async close(): Promise<void> {
    this.notifier.close();
    await this.handle?.close().catch(() => undefined);
    this.markClosed();
  }

  private instance(era: 'legacy' | 'modern'): Server {
    const id = `stdio-${++this.instances}`;
    // A change its tools/list already carries is not announced again (ToolListNotifier.listed).
    const listTools = { execute: () => this.notifier.listed(id, () => this.deps.listTools.execute()) };
    const server = createMcpToolServer({ ...this.deps, listTools });
    this.notifier.add(id, server, true);
    // A 2026-07-28 instance has no handshake; a 2025 one is told of changes once initialized.
    if (era === 'modern') this.notifier.initialized(id);
    else server.oninitialized = () => this.notifier.initialized(id);
    server.onclose = () => this.notifier.remove(id);
    return server;
  }
}
