import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { EnablePlugin } from '../application/plugins/enable-plugin';
import { InstallPlugin } from '../application/plugins/install-plugin';
import { PluginRecords } from '../application/ports/plugin-records';
import { StartSession, type StartedSession } from '../application/sessions/start-session';
import { StopSession } from '../application/sessions/stop-session';
import type { Settings } from '../application/settings';
import { runServe, type RunningServe } from './serve';
import { LifecycleLines } from '../adapters/cli/lifecycle-lines';
import type { LogFormat } from '../adapters/cli/log-format';
import { CatalogService } from '../application/catalog/catalog-service';
import { SessionChanges } from '../application/sessions/session-changes';

const EXAMPLES = resolve(__dirname, '..', '..', 'examples', 'plugins');
const TOOLPORT_BIN = resolve(__dirname, '..', '..', 'bin', 'toolport');
/** Example folder → plugin id (from its manifest). */
const DEMO_PLUGINS: ReadonlyArray<{ folder: string; id: string }> = [
  { folder: 'echo', id: 'toolport.echo' },
  { folder: 'notes', id: 'toolport.notes' },
];

export interface DemoOptions {
  dataDir: string;
  settings: Settings;
  env: NodeJS.ProcessEnv;
  print(line: string): void;
  /** How the backend's records are written on stderr. */
  logFormat?: LogFormat;
}

export interface RunningDemo {
  serve: RunningServe;
  session: StartedSession;
  close(): Promise<void>;
}

/**
 * `toolport demo`: the backend on the embedded SQLite default, the example plugins installed
 * (or reused from an earlier run), and one kanban-task session whose agent connection is
 * printed ready to paste.
 */
export async function runDemo(options: DemoOptions): Promise<RunningDemo> {
  options.print(`Starting a backend on ${resolve(options.dataDir)}…`);
  const serve = await runServe({
    dataDir: options.dataDir,
    host: '127.0.0.1',
    port: 0,
    settings: options.settings,
    env: options.env,
    logFormat: options.logFormat,
  });
  const { container } = serve;
  let stopNarrating = (): void => undefined;
  try {
    stopNarrating = await narrateLifecycle(container, options.print);
    const store = container.get(PluginRecords);
    for (const { folder, id } of DEMO_PLUGINS) {
      const dir = join(EXAMPLES, folder);
      if (!existsSync(join(dir, 'dist', 'main.js'))) throw new Error(`example plugin ${folder} is not built: run npm ci (or npm run build:examples)`);
      const installed = await store.getPlugin(id);
      // Each change is told by the lifecycle lines; only a plugin that was already up says nothing by itself.
      if (!installed) await container.get(InstallPlugin).execute({ path: dir });
      else if (!installed.enabled || installed.status !== 'active') await container.get(EnablePlugin).execute(installed.id);
      else options.print(`plugin ${installed.id} ${installed.version} active (installed by an earlier run)`);
    }
    const startSession = container.get(StartSession);
    const session = await startSession.execute({ task_id: 'demo-task', workspace_id: 'demo-workspace', surface: 'kanban-task' });
    const stdioSession = await startSession.execute({ task_id: 'demo-task', workspace_id: 'demo-workspace', surface: 'kanban-task', launch: false });
    const mcp = session.mcp!;
    options.print('');
    options.print(`Backend: ${serve.url} (admin token in ${join(resolve(options.dataDir), 'admin.token')})`);
    options.print(`Console: ${serve.url}/console/ (sign in with that admin token)`);
    options.print(`Session ${session.session_id} for task demo-task (kanban-task) is ${session.status}.`);
    options.print('');
    options.print('Claude Code:');
    options.print(`  claude mcp add --transport http toolport ${mcp.url} --header "Authorization: Bearer ${mcp.token}"`);
    options.print('MCP Inspector (Streamable HTTP, with the header below):');
    options.print(`  npx @modelcontextprotocol/inspector   # URL ${mcp.url}, header Authorization: Bearer ${mcp.token}`);
    options.print(`A stdio client (its own session ${stdioSession.session_id}; the agentctl runs as the client's child):`);
    options.print(
      `  TOOLPORT_SESSION_TOKEN=${stdioSession.agentctl!.session_token} ${TOOLPORT_BIN} agentctl --stdio --backend-url ${serve.url} --data-dir ${resolve(options.dataDir)}`,
    );
    options.print('Press Ctrl-C to stop everything.');
    options.print('');
    options.print(`MCP URL: ${mcp.url}`);
    options.print(`MCP token: ${mcp.token}`);
    const close = async () => {
      stopNarrating();
      // The stdio session belongs to this demo run: end it, so it does not stay `starting`
      // forever in the records (the launched one is stopped by the backend itself).
      await container.get(StopSession).execute(stdioSession.session_id);
      await serve.close();
    };
    return { serve, session, close };
  } catch (error) {
    stopNarrating();
    await serve.close();
    throw error;
  }
}

/** Prints one line per plugin or session change from now on; returns what stops it. */
async function narrateLifecycle(container: RunningServe['container'], print: (line: string) => void): Promise<() => void> {
  const lines = new LifecycleLines();
  const catalog = container.get(CatalogService);
  // What the backend started with is known already; only what changes from here is told.
  lines.pluginsCommitted(new Map((await container.get(PluginRecords).listPlugins()).map((record) => [record.id, record])));
  const stops = [
    catalog.onRecords((records) => lines.pluginsCommitted(records).forEach(print)),
    container.get(SessionChanges).onChange((session) => lines.sessionSaved(session).forEach(print)),
  ];
  return () => stops.forEach((stop) => stop());
}
