import { Client, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import type { StartedSession } from '../../../api';
import type { ApiClient, ApiAnswer } from '../api-client';
import { EXIT, UsageError } from '../exit-codes';
import type { CliIo, CommandInput } from '../program';
import { readPackageVersion } from '../package-version';
import { runApiWork } from './api-command';

/** An MCP tool result as the agentctl answers it. */
interface ToolCallResult {
  content?: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
  isError?: boolean;
}

/** What a short-lived CLI session is, unless `--task`, `--workspace` or `--surface` say otherwise (and `--profile`, else `default`). */
const DEFAULT_SESSION = { task: 'toolport-cli', workspace: 'toolport-cli', surface: 'kanban-task' };

/**
 * `toolport tool call <exposed-name> [--args JSON]`: calls a tool as an agent would, through
 * the real path (docs/cli.md): a short-lived session, its agentctl's MCP endpoint with the
 * official client, then the session stopped. Prints the result's text (exit 1 when it is an
 * error); `--json` prints the MCP result itself.
 */
export function toolCallCommand(io: CliIo): (input: CommandInput) => Promise<number> {
  return async (input) => {
    const [tool] = input.args;
    const args = parseArguments(input.options.args);
    let result: ToolCallResult | undefined;
    const code = await runApiWork(
      io,
      input,
      async (client) => {
        const started = await client.call('POST /api/v1/sessions', {
          body: {
            task_id: stringOption(input.options.task, DEFAULT_SESSION.task),
            workspace_id: stringOption(input.options.workspace, DEFAULT_SESSION.workspace),
            surface: stringOption(input.options.surface, DEFAULT_SESSION.surface),
            ...(typeof input.options.profile === 'string' ? { profile: input.options.profile } : {}),
          },
        });
        if (!started.ok) return started;
        const session = started.body;
        try {
          result = await callThroughMcp(session, tool, args);
        } finally {
          await stopSession(client, session.session_id);
        }
        return { status: 200, ok: true, body: result } satisfies ApiAnswer<ToolCallResult>;
      },
      (body) => (body.isError === true ? '' : `${resultText(body)}\n`),
    );
    if (code !== EXIT.ok || !result?.isError) return code;
    if (!input.global.json) io.stderr(`${resultText(result)}\n`);
    return EXIT.refused;
  };
}

async function callThroughMcp(session: StartedSession, tool: string, args: Record<string, unknown>): Promise<ToolCallResult> {
  if (!session.mcp) throw new Error('the backend started the session without an MCP endpoint');
  const client = new Client({ name: 'toolport-cli', version: readPackageVersion() });
  const transport = new StreamableHTTPClientTransport(new URL(session.mcp.url), {
    requestInit: { headers: { Authorization: `Bearer ${session.mcp.token}` } },
  });
  await client.connect(transport);
  try {
    return (await client.callTool({ name: tool, arguments: args })) as ToolCallResult;
  } catch (error) {
    // A JSON-RPC error (an unknown tool name is -32602) is a refusal the person can act on.
    throw Object.assign(new Error(`the call of ${tool} was refused: ${(error as Error).message}`), { exitCode: EXIT.refused });
  } finally {
    await client.close().catch(() => undefined);
  }
}

/** The session is the CLI's own: it goes whatever happened, and a failure to stop it is not the call's. */
async function stopSession(client: ApiClient, sessionId: string): Promise<void> {
  await client.call('DELETE /api/v1/sessions/:id', { params: { id: sessionId } }).catch(() => undefined);
}

function parseArguments(raw: unknown): Record<string, unknown> {
  if (raw === undefined) return {};
  let value: unknown;
  try {
    value = JSON.parse(String(raw));
  } catch {
    throw new UsageError(`--args must be a JSON object, such as '{"name": "Ada"}'; got ${JSON.stringify(String(raw))}`);
  }
  if (!value || typeof value !== 'object' || Array.isArray(value)) throw new UsageError('--args must be a JSON object, not a list or a single value');
  return value as Record<string, unknown>;
}

function stringOption(value: unknown, fallback: string): string {
  return typeof value === 'string' && value !== '' ? value : fallback;
}

function resultText(result: ToolCallResult): string {
  return (result.content ?? [])
    .filter((part) => part.type === 'text')
    .map((part) => part.text ?? '')
    .join('\n');
}
