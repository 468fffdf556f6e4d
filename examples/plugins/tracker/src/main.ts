import { createHash } from 'node:crypto';
import { pluginHost, serve, type ToolContext, type ToolHandler } from '@toolport/plugin-sdk';
import { TrackerApi, type Issue, type TrackerConfig } from './tracker-api';

/** The Host state key of a task's issues: a hash, since task ids are arbitrary text. */
function issuesKey(context: ToolContext): string {
  return `task/${createHash('sha256').update(`${context.workspaceId}\0${context.taskId}`).digest('hex').slice(0, 40)}/issues`;
}

function tools(api: TrackerApi): Record<string, ToolHandler> {
  const queue = new Map<string, Promise<unknown>>();
  /** Remembers a filed issue for the task; one write at a time per task, so none is lost. */
  const remember = (context: ToolContext, issue: Issue): Promise<unknown> => {
    const key = issuesKey(context);
    const next = (queue.get(key) ?? Promise.resolve()).then(async () => {
      const known = (await context.host.state.get<Issue[]>(key)) ?? [];
      await context.host.state.set(key, [...known, issue].slice(-200));
    });
    queue.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };
  return {
    create_issue: async (args, context, signal) => {
      const issue = await api.createIssue(String(args.title), typeof args.body === 'string' ? args.body : '', signal);
      await remember(context, issue);
      return { text: `Filed ${issue.id}: ${issue.title} (${issue.url})`, structuredContent: { issue } };
    },
    get_issue: async (args, _context, signal) => {
      const { status, ...issue } = await api.getIssue(String(args.id), signal);
      return { text: `${issue.id} [${status}] ${issue.title} (${issue.url})`, structuredContent: { issue, status } };
    },
    list_task_issues: async (_args, context) => {
      const issues = (await context.host.state.get<Issue[]>(issuesKey(context))) ?? [];
      const text = issues.length === 0 ? 'No issues filed from this task.' : issues.map((i) => `${i.id}: ${i.title}`).join('\n');
      return { text, structuredContent: { issues } };
    },
  };
}

/**
 * Reads the configuration (the token in clear: GetConfig is the only way it leaves the host)
 * and checks the token before serving: a plugin that cannot work with its configuration
 * should fail its start, so Toolport keeps the previous configuration and process.
 */
async function main(): Promise<void> {
  let api: TrackerApi;
  try {
    api = new TrackerApi(await pluginHost().config<TrackerConfig>());
    await api.whoami();
  } catch (error) {
    process.stderr.write(`toolport.tracker cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  await serve({ tools: tools(api) });
}

void main();
