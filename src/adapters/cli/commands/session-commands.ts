import { formatTable } from '../table';
import type { CliIo, CommandHandlers } from '../program';
import { runApiCommand } from './api-command';

interface SessionView {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: string;
  status: string;
  last_linked_at?: string | null;
  mcp?: { url: string; token: string };
  agentctl?: { backend_url: string; session_token: string };
}

/** `toolport session …` and `toolport catalog` against the §9 HTTP API. */
export function sessionCommands(io: CliIo): Pick<CommandHandlers, 'session.start' | 'session.list' | 'session.stop' | 'catalog'> {
  return {
    'session.start': (input) =>
      runApiCommand(io, input, {
        method: 'POST',
        path: '/api/v1/sessions',
        body: { task_id: input.options.task, workspace_id: input.options.workspace, surface: input.options.surface, launch: input.options.launch !== false },
        render: (body) => {
          const session = body as SessionView;
          const lines = [`Session ${session.session_id} (${session.surface}, task ${session.task_id}) is ${session.status}`];
          if (session.mcp) lines.push(`MCP URL: ${session.mcp.url}`, `MCP token: ${session.mcp.token}`);
          if (session.agentctl) lines.push(...agentctlInstructions(session.agentctl, input.global.ca ?? io.env.TOOLPORT_CA));
          return `${lines.join('\n')}\n`;
        },
      }),
    'session.list': (input) =>
      runApiCommand(io, input, {
        method: 'GET',
        path: '/api/v1/sessions',
        render: (body) => {
          const sessions = body as SessionView[];
          if (sessions.length === 0) return 'No sessions.\n';
          return formatTable(
            ['SESSION', 'TASK', 'WORKSPACE', 'SURFACE', 'STATUS', 'LAST LINKED'],
            sessions.map((s) => [s.session_id, s.task_id, s.workspace_id, s.surface, s.status, s.last_linked_at ?? 'never']),
          );
        },
      }),
    'session.stop': (input) =>
      runApiCommand(io, input, {
        method: 'DELETE',
        path: `/api/v1/sessions/${encodeURIComponent(input.args[0])}`,
        render: () => `Stopped session ${input.args[0]}\n`,
      }),
    catalog: (input) =>
      runApiCommand(io, input, {
        method: 'GET',
        path: '/api/v1/catalog',
        render: (body) => {
          const snapshot = body as { generation: string; revision: number; tools: Array<{ exposed_name: string; plugin_id: string; surfaces: string[] }> };
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

/**
 * What an operator runs beside the agent for a `launch: false` session: the agentctl over
 * stdio (the agent's MCP client starts it) or over HTTP, its tokens in the environment only.
 */
function agentctlInstructions(agentctl: { backend_url: string; session_token: string }, ca: string | undefined): string[] {
  const trust = ca ? ` --ca ${shellQuote(ca)}` : '';
  const command = `toolport agentctl --backend-url ${shellQuote(agentctl.backend_url)}${trust} --no-control-api`;
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
