import { EXIT } from './exit-codes';
import { join } from 'node:path';

/** The MCP clients `toolport client config` writes for (docs/clients.md). */
export const CLIENTS = ['claude-desktop', 'cursor', 'vscode', 'claude-code'] as const;
export type ClientName = (typeof CLIENTS)[number];

export const TRANSPORTS = ['stdio', 'http'] as const;
export type ClientTransport = (typeof TRANSPORTS)[number];

/** What the client starts (stdio): a command, its arguments, and the tokens in its environment only. */
export interface StdioServer {
  transport: 'stdio';
  command: string;
  args: string[];
  env: Record<string, string>;
}

/** Where the client connects (Streamable HTTP), with the bearer header the agentctl checks. */
export interface HttpServer {
  transport: 'http';
  url: string;
  token: string;
}

export type ServerEntry = StdioServer | HttpServer;

interface ClientShape {
  /** The top-level key of the file that holds the servers by name. */
  key: 'mcpServers' | 'servers';
  /** Whether each entry names its transport in `type`. */
  typed: boolean;
  /** Whether the client's file can hold a server it connects to over HTTP. */
  http: boolean;
}

const SHAPES: Record<ClientName, ClientShape> = {
  // Claude Desktop's file starts local (stdio) servers only.
  'claude-desktop': { key: 'mcpServers', typed: false, http: false },
  cursor: { key: 'mcpServers', typed: false, http: true },
  vscode: { key: 'servers', typed: true, http: true },
  'claude-code': { key: 'mcpServers', typed: true, http: true },
};

export function supportsHttp(client: ClientName): boolean {
  return SHAPES[client].http;
}

/** The entry of one server as `client` reads it. */
export function clientEntry(client: ClientName, server: ServerEntry): Record<string, unknown> {
  const { typed } = SHAPES[client];
  const type = typed ? { type: server.transport } : {};
  if (server.transport === 'stdio') return { ...type, command: server.command, args: server.args, env: server.env };
  return { ...type, url: server.url, headers: { Authorization: `Bearer ${server.token}` } };
}

/** The fragment of `client`'s file that holds `name`: what `client config` prints. */
export function clientFragment(client: ClientName, name: string, server: ServerEntry): Record<string, unknown> {
  return { [SHAPES[client].key]: { [name]: clientEntry(client, server) } };
}

/** Where a platform keeps things: the home folder, and XDG_CONFIG_HOME on Linux. */
export interface PlatformPlaces {
  platform: NodeJS.Platform;
  home: string;
  xdgConfigHome?: string;
}

/**
 * The user-level file `client` reads its MCP servers from on Linux and macOS; undefined on
 * another platform (then `--file` says where).
 */
export function clientFile(client: ClientName, places: PlatformPlaces): string | undefined {
  const { platform, home } = places;
  if (platform !== 'linux' && platform !== 'darwin') return undefined;
  const appSupport = join(home, 'Library', 'Application Support');
  const config = places.xdgConfigHome && places.xdgConfigHome.startsWith('/') ? places.xdgConfigHome : join(home, '.config');
  switch (client) {
    case 'claude-desktop':
      return platform === 'darwin' ? join(appSupport, 'Claude', 'claude_desktop_config.json') : join(config, 'Claude', 'claude_desktop_config.json');
    case 'cursor':
      return join(home, '.cursor', 'mcp.json');
    case 'vscode':
      return platform === 'darwin' ? join(appSupport, 'Code', 'User', 'mcp.json') : join(config, 'Code', 'User', 'mcp.json');
    case 'claude-code':
      return join(home, '.claude.json');
  }
}

/** A client file that cannot be merged into: it is left as it is (exit 1, docs/cli.md). */
export class ClientFileError extends Error {
  readonly exitCode = EXIT.refused;
  constructor(message: string) {
    super(message);
    this.name = 'ClientFileError';
  }
}

/**
 * `text` (the file as it is, or null when there is none) with `name` set under the client's
 * key, every other key and server kept as they were. A file that is not a JSON object, or
 * whose key holds something other than an object, is refused (ClientFileError), so a file a
 * person wrote is never overwritten with less than it held.
 */
export function mergeClientFile(client: ClientName, text: string | null, name: string, server: ServerEntry, path: string): { text: string; replaced: boolean } {
  const { key } = SHAPES[client];
  let document: Record<string, unknown> = {};
  if (text !== null && text.trim() !== '') {
    let parsed: unknown;
    try {
      parsed = JSON.parse(text);
    } catch (error) {
      throw new ClientFileError(`${path} is not valid JSON (${(error as Error).message}); fix it or move it away, it was left as it is`);
    }
    if (!isObject(parsed)) throw new ClientFileError(`${path} does not hold a JSON object; fix it or move it away, it was left as it is`);
    document = parsed;
  }
  const servers = document[key] ?? {};
  if (!isObject(servers)) throw new ClientFileError(`${path}: "${key}" is not an object; fix it or move it away, it was left as it is`);
  const replaced = Object.prototype.hasOwnProperty.call(servers, name);
  const merged = { ...document, [key]: { ...servers, [name]: clientEntry(client, server) } };
  return { text: `${JSON.stringify(merged, null, 2)}\n`, replaced };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
