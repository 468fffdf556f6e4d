/**
 * The mcpserver part's MCP server (bench/mcp-server.ts): the official SDK's `McpServer` on its
 * stdio transport with one `echo` tool, as a typical Node MCP server is written; bundled into
 * one file so its package needs no node_modules.
 */
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import { z } from 'zod';

const server = new McpServer({ name: 'bench-echo', version: '1.0.0' });
server.registerTool(
  'echo',
  { description: 'Answers the value it was given.', inputSchema: { value: z.string() }, annotations: { readOnlyHint: true } },
  ({ value }) => ({ content: [{ type: 'text', text: value }] }),
);
void server.connect(new StdioServerTransport());
