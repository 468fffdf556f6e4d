import { formatTable } from '../table';
import type { CliIo, CommandHandlers } from '../program';
import { runApiCommand } from './api-command';

interface SessionView {
  session_id: string;
  task_id: string;
  workspace_id: string;
  surface: string;
  status: string;
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
        body: { task_id: input.options.task, workspace_id: input.options.workspace, surface: input.options.surface },
        render: (body) => {
          const session = body as SessionView;
          const lines = [`Session ${session.session_id} (${session.surface}, task ${session.task_id}) is ${session.status}`];
          if (session.mcp) lines.push(`MCP URL: ${session.mcp.url}`, `MCP token: ${session.mcp.token}`);
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
            ['SESSION', 'TASK', 'WORKSPACE', 'SURFACE', 'STATUS'],
            sessions.map((s) => [s.session_id, s.task_id, s.workspace_id, s.surface, s.status]),
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
          return head + formatTable(['TOOL', 'PLUGIN', 'SURFACES'], snapshot.tools.map((t) => [t.exposed_name, t.plugin_id, t.surfaces.join(',')]));
        },
      }),
  };
}
