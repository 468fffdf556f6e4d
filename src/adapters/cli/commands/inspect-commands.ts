import type { BackendStore, JsonObject, PluginDetails } from '../../../api';
import { locateBackend } from '../backend-locator';
import type { ApiAnswer } from '../api-client';
import type { CliIo, CommandHandlers, CommandInput } from '../program';
import { runApiWork } from './api-command';

/** `toolport plugin info` and `toolport status`: read-only views for an author or operator. */
export function inspectCommands(io: CliIo): Pick<CommandHandlers, 'plugin.info' | 'status'> {
  return { 'plugin.info': (input) => pluginInfo(io, input), status: (input) => status(io, input) };
}

/** The record in detail, then (for people) its configuration as the API shows it: secrets masked. */
function pluginInfo(io: CliIo, input: CommandInput): Promise<number> {
  const params = { id: input.args[0] };
  let config: JsonObject | undefined;
  return runApiWork(
    io,
    input,
    async (client) => {
      const info = await client.call('GET /api/v1/plugins/:id/info', { params });
      if (info.ok && !input.global.json) {
        const answer = await client.call('GET /api/v1/plugins/:id/config', { params });
        if (answer.ok) config = answer.body.values;
      }
      return info;
    },
    (plugin) => describePlugin(plugin, config),
  );
}

function describePlugin(plugin: PluginDetails, config: JsonObject | undefined): string {
  const { pid, started_at: since } = plugin.process;
  const lines = [`${plugin.id} ${plugin.version} (${plugin.status})`];
  lines.push(pid === null ? 'Process: none running' : `Process: pid ${pid} since ${since ?? 'unknown'}, ${channelOf(plugin)}`);
  lines.push(`Restarts: ${plugin.restart_count}`, `Last error: ${plugin.last_error ?? 'none'}`);
  if (plugin.server !== undefined)
    lines.push(plugin.server === null ? 'MCP server: not started yet' : `MCP server: ${plugin.server.name} ${plugin.server.version}`);
  lines.push(...driftLines(plugin));
  const keys = Object.entries(config ?? {});
  lines.push(keys.length === 0 ? 'Configuration: none set' : `Configuration:\n${keys.map(([key, value]) => `  ${key} = ${JSON.stringify(value)}`).join('\n')}`);
  lines.push(...reachLines(plugin));
  for (const warning of plugin.warnings) lines.push(`Warning: ${warning.path}: ${warning.message}`);
  lines.push(plugin.agent_tools.length === 0 ? 'Tools: none declared' : 'Tools:');
  for (const tool of plugin.agent_tools) {
    lines.push(`  ${tool.exposed_name}${tool.title ? ` (${tool.title})` : ''} on ${tool.surfaces.join(', ')}`);
    lines.push(`    ${tool.description.replace(/\s+/g, ' ').trim()}`);
    const serverName = (tool as { server_name?: unknown }).server_name;
    if (typeof serverName === 'string') lines.push(`    imported from the server's tool ${JSON.stringify(serverName)}`);
    lines.push(`    input: ${JSON.stringify(tool.input_schema)}`);
    if (tool.output_schema !== undefined) lines.push(`    output: ${JSON.stringify(tool.output_schema)}`);
  }
  return `${lines.join('\n')}\n`;
}

/**
 * What the plugin may reach and how it runs (docs/cli.md, `plugin info`): its sandbox and uid,
 * then the network and each granted path and environment name, `none` for what it has not.
 */
export function reachLines(plugin: Pick<PluginDetails, 'permissions' | 'sandbox' | 'uid'>): string[] {
  const { read_paths: reads, write_paths: writes, env } = plugin.permissions;
  const as = plugin.uid === null ? "as the backend's user" : `as uid ${plugin.uid}`;
  const sandboxed = plugin.sandbox.mode !== 'none';
  const list = (items: string[]): string => (items.length === 0 ? 'none' : items.join(', '));
  return [
    'May reach:',
    sandboxed
      ? `  sandbox: ${plugin.sandbox.mode}, ${as}: its installed version (read-only), its data dir and TMPDIR, and what is below`
      : `  sandbox: none (unsandboxed), ${as}: whatever that user can`,
    `  network: ${plugin.sandbox.network ? "the host's network" : 'none (a loopback of its own)'}`,
    `  read: ${list(reads)}`,
    `  write: ${list(writes)}`,
    `  env: ${list(env)}`,
  ];
}

/**
 * An MCP server plugin's drift (docs/lifecycle.md, Pinned tools and drift): what its last list
 * would change, by local name, and how to accept it; nothing for other plugins.
 */
export function driftLines(plugin: Pick<PluginDetails, 'id' | 'tool_drift' | 'server'>): string[] {
  if (plugin.tool_drift === undefined) return [];
  const drift = plugin.tool_drift;
  if (drift === null) return ["Tool drift: none (the server's tools match the pinned ones)"];
  const lines = [`Tool drift since ${drift.detected_at}: agents keep the pinned tools until \`toolport plugin tools accept ${plugin.id}\``];
  for (const kind of ['added', 'removed', 'changed'] as const) if (drift[kind].length > 0) lines.push(`  ${kind}: ${drift[kind].join(', ')}`);
  return lines;
}

/**
 * How the host reaches the process (docs/plugin-protocol.md §4): a unix socket in a private
 * folder is not "plaintext" anyone could reach, even without TLS.
 */
export function channelOf(plugin: Pick<PluginDetails, 'tls' | 'network'>): string {
  if (plugin.tls) return plugin.network === 'unix' ? 'mutual TLS over a private unix socket' : 'mutual TLS';
  if (plugin.network === 'unix') return 'a private unix socket (no TLS; only the backend user can open it)';
  return plugin.network === 'tcp' ? 'plaintext TCP on 127.0.0.1 (other local users may reach it)' : 'plaintext';
}

/** Which store the backend keeps its records in, and which replica it is on a shared one. */
function storeLine(store: BackendStore | null): string {
  if (!store) return 'unknown';
  return store.kind === 'sqlite' ? `SQLite ${store.path}` : `PostgreSQL, as replica ${store.replica_id}`;
}

interface StatusView {
  backend: { url: string; version: string | null; pid: number | null; store: BackendStore | null };
  plugins: Record<string, string[]>;
  sessions: { live: number };
}

/** Is the backend there, which version, its plugins by status and its live sessions (docs/cli.md). */
function status(io: CliIo, input: CommandInput): Promise<number> {
  return runApiWork(
    io,
    input,
    async (client) => {
      const about = await client.call('GET /api/v1/backend');
      if (!about.ok) return about;
      const plugins = await client.call('GET /api/v1/plugins');
      if (!plugins.ok) return plugins;
      const sessions = await client.call('GET /api/v1/sessions');
      if (!sessions.ok) return sessions;
      const byStatus: Record<string, string[]> = {};
      for (const plugin of plugins.body) (byStatus[plugin.status] ??= []).push(plugin.id);
      const { version, pid, store } = about.body;
      const view: StatusView = {
        backend: { url: locateBackend(input.global, io.env).url, version, pid, store: store ?? null },
        plugins: byStatus,
        sessions: { live: sessions.body.filter((session) => session.status === 'live').length },
      };
      return { status: 200, ok: true, body: view } satisfies ApiAnswer<StatusView>;
    },
    (view) => {
      const plugins = Object.entries(view.plugins).map(([state, ids]) => `  ${state}: ${ids.join(', ')}`);
      return (
        `Backend: ${view.backend.url} (Toolport ${view.backend.version ?? 'unknown'}, pid ${view.backend.pid ?? 'unknown'})\n` +
        `Store: ${storeLine(view.backend.store)}\n` +
        `Plugins:${plugins.length === 0 ? ' none installed' : `\n${plugins.join('\n')}`}\n` +
        `Live sessions: ${view.sessions.live}\n`
      );
    },
  );
}
