import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { resultText, type McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { FakeTracker } from '../../support/fake-tracker';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { runToolport, type CliRun } from '../../support/processes/run-toolport';
import { pluginFolders, REPO_ROOT } from '../../support/processes/toolport-paths';
import { filesHolding, processesHolding } from '../../support/secret-leaks';

jest.setTimeout(60_000);

const TRACKER = 'toolport.tracker';
const CREATE = 'kandev_toolport_tracker_create_issue';
const LIST = 'kandev_toolport_tracker_list_task_issues';
/** Long enough that a cancelled call is seen ended well before its timeout would end it. */
const TOOL_TIMEOUT_MS = 8000;

/**
 * A plugin on the SDK that uses the scoped Host API the way a handler does (`context.host.workspace`
 * and `.task`), and, to probe the host's invocation registry, the way a careless or hostile one
 * might: a handler's host kept after its call ended, and a request naming an invocation id it
 * was handed (a call in flight to another process, or one made up).
 */
const PROBE_SOURCE = `
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { HostError, serve, type CallHost } from '@toolport/plugin-sdk';
import { HostConnection } from './packages/plugin-sdk/src/host-client';

const dataDir = process.env.TOOLPORT_PLUGIN_DATA_DIR!;
const codeOf = async (attempt: () => Promise<unknown>) => {
  try {
    await attempt();
    return 'ok';
  } catch (error) {
    return error instanceof HostError ? error.code : String(error);
  }
};
let kept: CallHost | undefined;
let release: (() => void) | undefined;
const connection = new HostConnection(process.env);

void serve({
  tools: {
    note: async (args, context) => {
      const value = String(args.value);
      await context.host.workspace.state.set('note', value);
      await context.host.task.state.set('note', value);
      await context.host.workspace.secrets.set('token', 'secret-' + value);
      return { text: 'noted' };
    },
    recall: async (_args, context) => {
      const structuredContent = {
        workspace: (await context.host.workspace.state.get('note')) ?? null,
        task: (await context.host.task.state.get('note')) ?? null,
        instance: (await context.host.state.get('note')) ?? null,
        secret: (await context.host.workspace.secrets.get('token')) ?? null,
        project: ((await context.host.config()) as { project?: string }).project ?? null,
      };
      return { text: JSON.stringify(structuredContent), structuredContent };
    },
    keep: async (_args, context) => {
      kept = context.host;
      return { text: context.invocationId };
    },
    use_kept: async () => ({ text: await codeOf(() => kept!.workspace.state.get('note')) }),
    use_id: async (args) => ({ text: await codeOf(() => connection.forCall(String(args.id)).workspace.state.get('note')) }),
    hold: (_args, context, signal) =>
      new Promise((resolve) => {
        release = () => resolve({ text: 'released' });
        signal.addEventListener('abort', () => resolve({ text: 'aborted' }), { once: true });
        writeFileSync(join(dataDir, 'held'), context.invocationId);
      }),
    release: async () => {
      release?.();
      return { text: 'ok' };
    },
  },
});
`;

const tool = (name: string) => ({ name, description: `The ${name} tool.`, surfaces: ['kanban-task'], input_schema: { type: 'object' } });
const probeManifest = (id: string) => ({
  api_version: 1,
  id,
  version: '1.0.0',
  capabilities: { state: true, secrets: true },
  config_schema: { type: 'object', properties: { project: { type: 'string' } }, additionalProperties: false },
  agent_tools: ['note', 'recall', 'keep', 'use_kept', 'use_id', 'hold', 'release'].map(tool),
});

/**
 * Issue 26 end to end: a plugin's calls from sessions of two workspaces each reach that
 * workspace's configuration (its own API key, a secret set through the real CLI), state and
 * secrets, and nothing else; a request naming a call that is not in flight to the very process
 * asking (one answered, cancelled or timed out, one of another process, one made up) is
 * PERMISSION_DENIED.
 */
describe('the scoped Host API, with sessions of two workspaces', () => {
  const world = new BackendWorld(['--plugin-start-timeout-ms', '15000', '--tool-timeout-ms', String(TOOL_TIMEOUT_MS)], { prefix: 'toolport-scoped-host-' });
  const sharedToken = `shared-${randomBytes(12).toString('hex')}`;
  const payToken = `pay-${randomBytes(12).toString('hex')}`;
  const mobToken = `mob-${randomBytes(12).toString('hex')}`;
  const tracker = new FakeTracker(sharedToken);
  const cliRuns: CliRun[] = [];
  const agents = new Map<string, McpAgent>();

  const cli = async (args: string[], input?: string): Promise<CliRun> => {
    const run = await runToolport([...args, '--data-dir', world.dataDir], { input });
    cliRuns.push(run);
    return run;
  };
  /** An agent on a new launched session of `workspace`, doing `task`. */
  const agentOf = async (workspace: string, task: string): Promise<McpAgent> => {
    const key = `${workspace}/${task}`;
    const known = agents.get(key);
    if (known) return known;
    const started = await world.api<StartedSession>('POST', '/api/v1/sessions', { task_id: task, workspace_id: workspace, surface: 'kanban-task' });
    expect(started.status).toBe(201);
    const agent = await world.agent(started.body);
    agents.set(key, agent);
    return agent;
  };
  const text = async (agent: McpAgent, name: string, args: Record<string, unknown> = {}) => resultText(await agent.call(name, args));
  const heldFile = (pluginId: string) => join(pluginFolders(world.dataDir), 'plugin-data', pluginId, 'held');
  /** Starts `hold` on `pluginId` and answers the pending call with its invocation id, once the handler runs. */
  const hold = async (agent: McpAgent, pluginId: string, signal?: AbortSignal) => {
    rmSync(heldFile(pluginId), { force: true });
    const call = agent.call(`kandev_${pluginId.replace(/[.-]/g, '_')}_hold`, {}, { signal, timeout: 30_000 });
    call.catch(() => undefined);
    const id = await eventually(() => (existsSync(heldFile(pluginId)) ? readFileSync(heldFile(pluginId), 'utf8') : undefined), 10_000, 'the hold handler');
    return { call, id };
  };

  beforeAll(async () => {
    execFileSync(process.execPath, [join(REPO_ROOT, 'scripts', 'build-examples.js')], { cwd: REPO_ROOT, stdio: 'pipe' });
    tracker.accept(payToken);
    tracker.accept(mobToken);
    await tracker.start();
    await world.start();
    await world.install(writePluginPackage(join(world.root, 'probe-a'), { manifest: probeManifest('e2e.probe-a'), source: PROBE_SOURCE }));
    await world.install(writePluginPackage(join(world.root, 'probe-b'), { manifest: probeManifest('e2e.probe-b'), source: PROBE_SOURCE }));
  }, 60_000);

  afterAll(async () => {
    for (const agent of agents.values()) await agent.close();
    const left = await world.teardown();
    await tracker.close();
    expect(left).toEqual([]);
  }, 30_000);

  it("gives each workspace's calls its own API key and project (overrides set with the CLI, the keys from stdin), the rest the instance's", async () => {
    expect(await cli(['plugin', 'install', join(REPO_ROOT, 'examples', 'plugins', 'tracker'), '--grant', 'network'])).toMatchObject({ code: 0 });
    const instance = await cli(['plugin', 'config', 'set', TRACKER, `base_url=${tracker.baseUrl}`, 'project=SHARED', 'api_token=-'], `${sharedToken}\n`);
    expect(instance).toMatchObject({ code: 0, stdout: `${TRACKER} is active\n` });
    expect(await cli(['plugin', 'config', 'set', TRACKER, '--workspace', 'payments', 'project=PAY', 'api_token=-'], `${payToken}\n`)).toMatchObject({
      code: 0,
    });
    expect(await cli(['plugin', 'config', 'set', TRACKER, '--workspace', 'mobile', 'project=MOB', 'api_token=-'], `${mobToken}\n`)).toMatchObject({ code: 0 });
    expect(await cli(['plugin', 'config', 'get', TRACKER, '--workspace', 'payments'])).toMatchObject({ code: 0, stdout: 'api_token=********\nproject=PAY\n' });

    const filedBy = async (workspace: string) => {
      const before = tracker.presented.length;
      const filed = await (await agentOf(workspace, 'T-1')).call(CREATE, { title: `from ${workspace}` });
      expect(filed.isError).toBeFalsy();
      return { text: resultText(filed), tokens: new Set(tracker.presented.slice(before)) };
    };
    const pay = await filedBy('payments');
    expect(pay.text).toMatch(/^Filed PAY-\d+: from payments/);
    expect(pay.tokens).toEqual(new Set([payToken]));
    const mob = await filedBy('mobile');
    expect(mob.text).toMatch(/^Filed MOB-\d+: from mobile/);
    expect(mob.tokens).toEqual(new Set([mobToken]));
    const web = await filedBy('web');
    expect(web.text).toMatch(/^Filed SHARED-\d+: from web/);
    expect(web.tokens).toEqual(new Set([sharedToken]));
  });

  it("keeps each task's issues apart per workspace, the same task id in two workspaces included", async () => {
    const listed = async (workspace: string, task: string) =>
      ((await (await agentOf(workspace, task)).call(LIST, {})).structuredContent as { issues: Array<{ title: string }> }).issues.map((i) => i.title);
    expect(await listed('payments', 'T-1')).toEqual(['from payments']);
    expect(await listed('mobile', 'T-1')).toEqual(['from mobile']);
    expect(await listed('payments', 'T-2')).toEqual([]);
  });

  it('applies an override removed with config unset from the next call on, without a restart', async () => {
    const pid = world.pluginPids(TRACKER);
    expect(await cli(['plugin', 'config', 'unset', TRACKER, '--workspace', 'mobile', 'project'])).toMatchObject({ code: 0 });
    const before = tracker.presented.length;
    expect(await text(await agentOf('mobile', 'T-1'), CREATE, { title: 'after unset' })).toMatch(/^Filed SHARED-\d+: after unset/);
    // Mobile keeps its own key: only the project fell back to the instance's.
    expect(new Set(tracker.presented.slice(before))).toEqual(new Set([mobToken]));
    expect(world.pluginPids(TRACKER)).toEqual(pid);
  });

  it("gives a handler its call's workspace and task state and secrets, never another workspace's", async () => {
    const payT1 = await agentOf('payments', 'T-1');
    const mobT1 = await agentOf('mobile', 'T-1');
    expect(await text(payT1, 'kandev_e2e_probe_a_note', { value: 'pay' })).toBe('noted');
    expect(await text(mobT1, 'kandev_e2e_probe_a_note', { value: 'mob' })).toBe('noted');
    const recall = async (agent: McpAgent) => (await agent.call('kandev_e2e_probe_a_recall', {})).structuredContent;
    expect(await recall(payT1)).toEqual({ workspace: 'pay', task: 'pay', instance: null, secret: 'secret-pay', project: null });
    expect(await recall(mobT1)).toEqual({ workspace: 'mob', task: 'mob', instance: null, secret: 'secret-mob', project: null });
    // Another task of payments: the workspace's entries, not the other task's.
    expect(await recall(await agentOf('payments', 'T-2'))).toEqual({ workspace: 'pay', task: null, instance: null, secret: 'secret-pay', project: null });
    // Another plugin's scoped entries are its own, in the same workspace too.
    expect((await payT1.call('kandev_e2e_probe_b_recall', {})).structuredContent).toEqual({
      workspace: null,
      task: null,
      instance: null,
      secret: null,
      project: null,
    });
  });

  it('refuses a request from a handler host kept after its call was answered (stale) with PERMISSION_DENIED', async () => {
    const agent = await agentOf('payments', 'T-1');
    await text(agent, 'kandev_e2e_probe_a_keep');
    expect(await text(agent, 'kandev_e2e_probe_a_use_kept')).toBe('PERMISSION_DENIED');
  });

  it('admits the id of a call in flight only from the process serving it: another plugin, a made-up id and the answered call are PERMISSION_DENIED', async () => {
    const agent = await agentOf('payments', 'T-1');
    const held = await hold(agent, 'e2e.probe-a');
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: held.id })).toBe('ok');
    expect(await text(agent, 'kandev_e2e_probe_b_use_id', { id: held.id })).toBe('PERMISSION_DENIED');
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: `made-up-${randomBytes(8).toString('hex')}` })).toBe('PERMISSION_DENIED');
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: '' })).toBe('PERMISSION_DENIED');
    await text(agent, 'kandev_e2e_probe_a_release');
    expect(resultText(await held.call)).toBe('released');
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: held.id })).toBe('PERMISSION_DENIED');
  });

  it("ends a cancelled call's registration at the cancel, long before its timeout", async () => {
    const agent = await agentOf('mobile', 'T-1');
    const controller = new AbortController();
    const held = await hold(agent, 'e2e.probe-a', controller.signal);
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: held.id })).toBe('ok');
    const cancelledAt = Date.now();
    controller.abort();
    await expect(held.call).rejects.toThrow();
    await eventually(
      async () => ((await text(agent, 'kandev_e2e_probe_a_use_id', { id: held.id })) === 'PERMISSION_DENIED' ? true : undefined),
      TOOL_TIMEOUT_MS / 2,
      'the cancelled call to leave the registry',
    );
    expect(Date.now() - cancelledAt).toBeLessThan(TOOL_TIMEOUT_MS);
  });

  it("ends a timed-out call's registration when the call times out", async () => {
    const agent = await agentOf('mobile', 'T-1');
    const held = await hold(agent, 'e2e.probe-a');
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: held.id })).toBe('ok');
    expect(resultText(await held.call)).toMatch(/^\[TOOL_TIMEOUT\]/);
    expect(await text(agent, 'kandev_e2e_probe_a_use_id', { id: held.id })).toBe('PERMISSION_DENIED');
  });

  it('never shows a workspace key in a log line, a CLI output, a file under the data dir or a process environment or command line', async () => {
    for (const token of [sharedToken, payToken, mobToken]) {
      expect(world.backends.filter((b) => b.stderr().includes(token))).toEqual([]);
      expect(cliRuns.filter((run) => run.stdout.includes(token) || run.stderr.includes(token))).toEqual([]);
      expect(filesHolding(world.dataDir, token)).toEqual([]);
      expect(processesHolding(token)).toEqual([]);
    }
  });
});
