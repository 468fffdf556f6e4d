import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, resolve } from 'node:path';
import type { StartedSession } from '../../../api';
import type { ApiAnswer } from '../api-client';
import {
  CLIENTS,
  ClientFileError,
  clientFile,
  clientFragment,
  mergeClientFile,
  supportsHttp,
  TRANSPORTS,
  type ClientName,
  type ClientTransport,
  type ServerEntry,
} from '../client-files';
import { UsageError } from '../exit-codes';
import type { CliIo, CommandInput } from '../program';
import { toolportBin } from '../toolport-bin';
import { runApiWork } from './api-command';

/** What `--write` did, or the fragment printed. */
interface ClientConfigView {
  fragment: Record<string, unknown>;
  written: { path: string; replaced: boolean } | null;
}

/**
 * `toolport client config --client C [--session ID | --task T --workspace W --surface S]
 * [--transport stdio|http] [--name N] [--write [--file F]]` (docs/clients.md): the server entry
 * that client reads, with tokens the backend issues now (shown once): stdio runs this
 * Toolport's `agentctl --stdio` with the session token in `env`; http names a launched
 * agentctl's MCP URL with its bearer header. `--write` merges it into the client's file,
 * keeping every other server; a malformed file is left untouched (exit 1) and, since it is
 * read first, costs no token.
 */
export function clientConfigCommand(io: CliIo): (input: CommandInput) => Promise<number> {
  return async (input) => {
    const request = readRequest(input, io.env);
    // Read (and checked) before any token is issued: a file that cannot be merged into costs none.
    const existing = request.file === null ? null : readClientFile(request.client, request.file);
    return runApiWork(
      io,
      input,
      async (client): Promise<ApiAnswer<ClientConfigView>> => {
        const started = request.session
          ? await client.call('POST /api/v1/sessions/:id/token', { params: { id: request.session } })
          : await client.call('POST /api/v1/sessions', {
              body: { task_id: request.task, workspace_id: request.workspace, surface: request.surface, launch: request.transport === 'http' },
            });
        if (!started.ok) return started;
        if (request.session) io.stderr(`Issued a new session token for session ${request.session}; its old token no longer links.\n`);
        const server = serverEntry(started.body, request.transport, input.global.ca ?? io.env.TOOLPORT_CA);
        const fragment = clientFragment(request.client, request.name, server);
        if (request.file === null) return { status: 200, ok: true, body: { fragment, written: null } };
        const merged = mergeClientFile(request.client, existing, request.name, server, request.file);
        writeClientFile(request.file, merged.text);
        return { status: 200, ok: true, body: { fragment, written: { path: request.file, replaced: merged.replaced } } };
      },
      (view) => {
        if (view.written === null) return `${JSON.stringify(view.fragment, null, 2)}\n`;
        const verb = view.written.replaced ? 'Replaced' : 'Added';
        return `${verb} the MCP server "${request.name}" in ${view.written.path} (restart ${request.client} to load it).\n`;
      },
    );
  };
}

interface ClientConfigRequest {
  client: ClientName;
  transport: ClientTransport;
  name: string;
  session?: string;
  task?: string;
  workspace?: string;
  surface: string;
  /** The file to merge into with `--write`; null to print. */
  file: string | null;
}

function readRequest(input: CommandInput, env: NodeJS.ProcessEnv): ClientConfigRequest {
  const { options } = input;
  const client = options.client as ClientName;
  if (!CLIENTS.includes(client)) throw new UsageError(`--client must be one of ${CLIENTS.join(', ')}`);
  const transport = (options.transport ?? 'stdio') as ClientTransport;
  if (!TRANSPORTS.includes(transport)) throw new UsageError(`--transport must be stdio or http`);
  if (transport === 'http' && !supportsHttp(client)) {
    throw new UsageError(`${client} starts its MCP servers itself: use --transport stdio (the default)`);
  }
  const name = typeof options.name === 'string' ? options.name : 'toolport';
  if (name.trim() === '') throw new UsageError('--name must not be empty');
  const session = typeof options.session === 'string' ? options.session : undefined;
  const task = typeof options.task === 'string' ? options.task : undefined;
  const workspace = typeof options.workspace === 'string' ? options.workspace : undefined;
  if (session !== undefined && (task !== undefined || workspace !== undefined || options.surface !== undefined)) {
    throw new UsageError('give either --session, or --task and --workspace (and --surface), not both');
  }
  if (session !== undefined && transport === 'http') {
    throw new UsageError(
      '--session issues a new token for a session whose agentctl the client starts (stdio); for HTTP, start a new session with --task and --workspace',
    );
  }
  if (session === undefined && (task === undefined || workspace === undefined)) {
    throw new UsageError('name the session: --session ID, or --task T --workspace W [--surface S]');
  }
  const surface = typeof options.surface === 'string' ? options.surface : 'kanban-task';
  let file: string | null = null;
  if (typeof options.file === 'string' && options.write !== true) throw new UsageError('--file goes with --write');
  if (options.write === true) {
    file =
      typeof options.file === 'string'
        ? resolve(options.file)
        : (clientFile(client, { platform: process.platform, home: env.HOME || homedir(), xdgConfigHome: env.XDG_CONFIG_HOME }) ?? null);
    if (file === null) throw new UsageError(`no known ${client} file on ${process.platform}: name it with --file`);
  }
  return { client, transport, name, session, task, workspace, surface, file };
}

/** A launched session's MCP endpoint, or the agentctl command a stdio client starts with the session token in its environment. */
function serverEntry(started: StartedSession, transport: ClientTransport, ca: string | undefined): ServerEntry {
  if (transport === 'http') {
    if (!started.mcp) throw new Error('the backend answered a launched session without its MCP endpoint');
    return { transport: 'http', url: started.mcp.url, token: started.mcp.token };
  }
  if (!started.agentctl) throw new Error('the backend answered a session without what its agentctl needs');
  const args = [toolportBin(), 'agentctl', '--backend-url', started.agentctl.backend_url, '--stdio', '--no-control-api'];
  if (ca) args.push('--ca', resolve(ca));
  return { transport: 'stdio', command: process.execPath, args, env: { TOOLPORT_SESSION_TOKEN: started.agentctl.session_token } };
}

/** The file as it is (null when there is none); ClientFileError when it cannot be read or merged into. */
function readClientFile(client: ClientName, path: string): string | null {
  if (!existsSync(path)) return null;
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new ClientFileError(`cannot read ${path} (${(error as NodeJS.ErrnoException).code ?? (error as Error).message})`);
  }
  mergeClientFile(client, text, 'toolport', { transport: 'http', url: '', token: '' }, path);
  return text;
}

/**
 * Writes through a file beside it, renamed over the old one, so a failure leaves the old file
 * whole. The file holds a token: a new one is made 0600; an existing one keeps its mode.
 */
function writeClientFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  const mode = existsSync(path) ? statSync(path).mode & 0o777 : 0o600;
  const temporary = `${path}.toolport-${process.pid}.tmp`;
  writeFileSync(temporary, text, { mode: 0o600 });
  chmodSync(temporary, mode);
  renameSync(temporary, path);
}
