import { pluginHost, serve, type ToolContext, type ToolHandler } from '@toolport/plugin-sdk';
import { TrackerApi, type Issue, type TrackerConfig } from './tracker-api';

/** The task's Host state key of the issues it filed. */
const ISSUES = 'issues';

/**
 * The tracker as the call's workspace is configured: `context.host.config()` is the instance
 * configuration with that workspace's overrides (its own project and API token, say), read once
 * per call, so an override applies from the next call on without a restart.
 */
async function apiFor(context: ToolContext): Promise<TrackerApi> {
  return new TrackerApi(await context.host.config<TrackerConfig>());
}

function tools(): Record<string, ToolHandler> {
  const queue = new Map<string, Promise<unknown>>();
  /**
   * Remembers a filed issue in the task's Host state (`context.host.task`: the host keeps it
   * per workspace and task of the call); one write at a time per task, so none is lost.
   */
  const remember = (context: ToolContext, issue: Issue): Promise<unknown> => {
    const key = JSON.stringify([context.workspaceId, context.taskId]);
    const next = (queue.get(key) ?? Promise.resolve()).then(async () => {
      const known = (await context.host.task.state.get<Issue[]>(ISSUES)) ?? [];
      await context.host.task.state.set(ISSUES, [...known, issue].slice(-200));
    });
    queue.set(
      key,
      next.catch(() => undefined),
    );
    return next;
  };
  return {
    create_issue: async (args, context, signal) => {
      const issue = await (await apiFor(context)).createIssue(String(args.title), typeof args.body === 'string' ? args.body : '', signal);
      await remember(context, issue);
      return { text: `Filed ${issue.id}: ${issue.title} (${issue.url})`, structuredContent: { issue } };
    },
    get_issue: async (args, context, signal) => {
      const { status, ...issue } = await (await apiFor(context)).getIssue(String(args.id), signal);
      return { text: `${issue.id} [${status}] ${issue.title} (${issue.url})`, structuredContent: { issue, status } };
    },
    list_task_issues: async (_args, context) => {
      const issues = (await context.host.task.state.get<Issue[]>(ISSUES)) ?? [];
      const text = issues.length === 0 ? 'No issues filed from this task.' : issues.map((i) => `${i.id}: ${i.title}`).join('\n');
      return { text, structuredContent: { issues } };
    },
  };
}

/**
 * Reads the instance configuration (the token in clear: GetConfig is the only way it leaves the
 * host) and checks the token before serving: a plugin that cannot work with its configuration
 * should fail its start, so Toolport keeps the previous configuration and process.
 */
async function main(): Promise<void> {
  try {
    await new TrackerApi(await pluginHost().config<TrackerConfig>()).whoami();
  } catch (error) {
    process.stderr.write(`toolport.tracker cannot start: ${(error as Error).message}\n`);
    process.exit(1);
  }
  await serve({ tools: tools() });
}

void main();
