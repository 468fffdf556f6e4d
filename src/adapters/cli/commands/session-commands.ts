import type { StartedSession } from '../../../api';
import { UsageError } from '../exit-codes';
import { formatTable } from '../table';
import { toolportBin } from '../toolport-bin';
import type { CliIo, CommandHandlers } from '../program';
import { runApiCommand } from './api-command';

/** `toolport session …` and `toolport catalog` against the §9 HTTP API. */
export function sessionCommands(io: CliIo): Pick<CommandHandlers, 'session.start' | 'session.list' | 'session.stop' | 'session.prune' | 'catalog'> {
  return {
    'session.start': (input) =>
      runApiCommand(io, input, {
        route: 'POST /api/v1/sessions',
        body: {
          task_id: input.options.task,
          workspace_id: input.options.workspace,
          surface: input.options.surface,
          ...(typeof input.options.profile === 'string' ? { profile: input.options.profile } : {}),
          launch: input.options.launch !== false,
        },
        render: (session) => {
          const profile = session.profile === 'default' ? '' : `, profile ${session.profile}`;
          const lines = [`Session ${session.session_id} (${session.surface}, task ${session.task_id}${profile}) is ${session.status}`];
          if (session.mcp) lines.push(`MCP URL: ${session.mcp.url}`, `MCP token: ${session.mcp.token}`);
          if (session.agentctl) lines.push(...agentctlInstructions(session.agentctl, input.global.ca ?? io.env.TOOLPORT_CA));
          return `${lines.join('\n')}\n`;
        },
      }),
    'session.list': (input) =>
      runApiCommand(io, input, {
        route: 'GET /api/v1/sessions',
        render: (sessions) => {
          if (sessions.length === 0) return 'No sessions.\n';
          return formatTable(
            ['SESSION', 'TASK', 'WORKSPACE', 'PROFILE', 'SURFACE', 'STATUS', 'LAST LINKED'],
            sessions.map((s) => [s.session_id, s.task_id, s.workspace_id, s.profile, s.surface, s.status, s.last_linked_at ?? 'never']),
          );
        },
      }),
    'session.stop': (input) =>
      runApiCommand(io, input, {
        route: 'DELETE /api/v1/sessions/:id',
        params: { id: input.args[0] },
        render: () => `Stopped session ${input.args[0]}\n`,
      }),
    'session.prune': async (input) => {
      const olderThan = input.options.olderThan;
      const body = typeof olderThan === 'string' ? { older_than_s: ageInSeconds(olderThan) } : {};
      return runApiCommand(io, input, {
        route: 'POST /api/v1/sessions/prune',
        body,
        render: ({ removed }) => `Removed ${removed} stopped session${removed === 1 ? '' : 's'}\n`,
      });
    },
    catalog: (input) =>
      runApiCommand(io, input, {
        route: 'GET /api/v1/catalog',
        query: catalogViewQuery(input.options),
        render: (snapshot) => {
          const head = `generation ${snapshot.generation}, revision ${snapshot.revision}, ${snapshot.tools.length} tool(s)\n`;
          if (snapshot.tools.length === 0) return head;
          return (
            head +
            formatTable(
              ['TOOL', 'PLUGIN', 'SURFACES'],
              snapshot.tools.map((t) => [t.exposed_name, t.plugin_id, t.surfaces.join(',')]),
            )
          );
        },
      }),
  };
}

const VIEW_OPTIONS = ['workspace', 'profile', 'surface'] as const;

/** `catalog --workspace W --profile P --surface S`: all three or none (the whole catalog). */
export function catalogViewQuery(options: Record<string, unknown>): Record<string, string> | undefined {
  const given = VIEW_OPTIONS.filter((name) => typeof options[name] === 'string');
  if (given.length === 0) return undefined;
  const missing = VIEW_OPTIONS.filter((name) => !given.includes(name));
  if (missing.length > 0) throw new UsageError(`--workspace, --profile and --surface go together: ${missing.map((m) => `--${m}`).join(' and ')} missing`);
  return Object.fromEntries(VIEW_OPTIONS.map((name) => [name, options[name] as string]));
}

const AGE_UNITS: Record<string, number> = { '': 1, s: 1, m: 60, h: 60 * 60, d: 24 * 60 * 60 };

/** `--older-than`: whole seconds, or a whole number with s, m, h or d (`90s`, `30m`, `1h`, `7d`). */
export function ageInSeconds(raw: string): number {
  const match = /^(\d+)([smhd]?)$/.exec(raw.trim());
  const seconds = match ? Number(match[1]) * AGE_UNITS[match[2]!]! : NaN;
  if (!Number.isSafeInteger(seconds)) {
    throw new UsageError(`--older-than: expected seconds or a number with s, m, h or d (90s, 30m, 1h, 7d), got ${JSON.stringify(raw)}`);
  }
  return seconds;
}

/**
 * What an operator runs beside the agent for a `launch: false` session: the agentctl over
 * stdio (the agent's MCP client starts it) or over HTTP, its tokens in the environment only.
 * The command names this Toolport's `bin/toolport` by its absolute path: an MCP client's PATH
 * seldom holds `toolport` (README.md, "Getting toolport on your PATH").
 */
function agentctlInstructions(agentctl: NonNullable<StartedSession['agentctl']>, ca: string | undefined): string[] {
  const trust = ca ? ` --ca ${shellQuote(ca)}` : '';
  const command = `${shellQuote(toolportBin())} agentctl --backend-url ${shellQuote(agentctl.backend_url)}${trust} --no-control-api`;
  return [
    '',
    'Run its agentctl beside the agent, with this in its environment (never on a command line):',
    `  TOOLPORT_SESSION_TOKEN=${shellQuote(agentctl.session_token)}`,
    'For an MCP client that starts a stdio server, give it this command:',
    `  ${command} --stdio`,
    'Or serve MCP over HTTP, with a bearer token of your choosing for the agent in TOOLPORT_MCP_TOKEN:',
    `  ${command} --mcp-port 0`,
  ];
}

function shellQuote(text: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(text) ? text : `'${text.replace(/'/g, "'\\''")}'`;
}
