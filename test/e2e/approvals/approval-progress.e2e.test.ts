import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { ProgressNotificationSchema, type CallToolResult, type Progress } from '@modelcontextprotocol/sdk/types.js';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { recordedCalls, writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';
import { agentctlArgs } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const PLUGIN = 'progress.probe';
const ADD = 'kandev_progress_probe_add_tag';

/**
 * Progress while a call waits for approval (docs/approvals.md): the official clients of both
 * eras, over HTTP, send a `progressToken` and get `notifications/progress` while an operator
 * decides through the real CLI; a call without one gets none. The interval is set to 100 ms
 * (`--approval-progress-ms`, passed on to the agentctl the backend launches).
 */
describe('progress while a call waits for approval', () => {
  const world = new BackendWorld(['--plugin-sandbox', 'off', '--approval-timeout-ms', '30000', '--approval-progress-ms', '100'], {
    prefix: 'toolport-approval-progress-',
    workspace: 'prod',
  });
  const run = (args: string[]) => runToolport([...args, '--data-dir', world.dataDir]);
  const handled = new Set<string>();
  /** The id of the newest request `approval list --json` shows, once there is one no test took before. */
  const waiting = async (): Promise<string> => {
    for (;;) {
      const listed = await run(['approval', 'list', '--json']);
      expect(listed.code).toBe(0);
      const fresh = (JSON.parse(listed.stdout) as Array<{ id: string }>).filter((request) => !handled.has(request.id));
      if (fresh.length > 0) {
        handled.add(fresh[0]!.id);
        return fresh[0]!.id;
      }
    }
  };
  const tags = () => recordedCalls(world.dataDir, PLUGIN).map((call) => call.args.tag);
  let session: StartedSession;

  beforeAll(async () => {
    await world.start();
    await world.install(writeProbePlugin(join(world.root, 'probe'), PLUGIN, ['add_tag']));
    expect(await world.api('PUT', '/api/v1/approval-rules', [{ workspace: 'prod', profile: '*', tools: PLUGIN, mode: 'operator' }])).toMatchObject({
      status: 200,
    });
    session = await world.session('kanban-task');
  }, 90_000);

  afterAll(async () => {
    const { swept } = await world.gracefulTeardown();
    expect(swept).toEqual([]);
  }, 30_000);

  it('2025-11-25 (SDK v1): progress rides the call while it waits, then the approved call runs once', async () => {
    const agent = await world.agent(session);
    const seen: Progress[] = [];
    const call = agent.call(ADD, { tag: 'with-progress' }, { onprogress: (progress) => void seen.push(progress) });
    const id = await waiting();
    await eventually(() => seen.length >= 3, 10_000, 'three progress notifications while the call waits');
    expect(tags()).toEqual([]);
    expect(seen.slice(0, 3).map((p) => p.progress)).toEqual([1, 2, 3]);
    expect(seen[0]!.message).toMatch(/^waiting for approval: \d+ s so far$/);
    expect(await run(['approval', 'approve', id])).toMatchObject({ code: 0 });
    const result = await call;
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toBe('tagged with-progress');
    expect(tags()).toEqual(['with-progress']);
    await agent.close();
  });

  it('2026-07-28 (SDK v2): progress while it waits, then the denied call never reaches the plugin', async () => {
    const client = new ClientV2({ name: 'progress v2', version: '1.0.0' }, { versionNegotiation: { mode: { pin: '2026-07-28' } } });
    const transport = new HttpTransportV2(new URL(session.mcp!.url), { requestInit: { headers: { Authorization: `Bearer ${session.mcp!.token}` } } });
    await client.connect(transport);
    try {
      expect(client.getNegotiatedProtocolVersion()).toBe('2026-07-28');
      const seen: number[] = [];
      const call = client.callTool({ name: ADD, arguments: { tag: 'modern' } }, { onprogress: (progress) => void seen.push(progress.progress) });
      const id = await waiting();
      await eventually(() => seen.length >= 2, 10_000, 'two progress notifications while the call waits');
      expect(await run(['approval', 'deny', id, '--reason', 'freeze'])).toMatchObject({ code: 0 });
      const result = (await call) as { isError?: boolean; content: Array<{ type: string; text?: string }> };
      expect(result.isError).toBe(true);
      expect(result.content[0]?.text).toMatch(/^\[APPROVAL_DENIED\] .*freeze/);
      expect(seen.slice(0, 2)).toEqual([1, 2]);
      expect(tags()).not.toContain('modern');
    } finally {
      await client.close();
    }
  });

  it('over stdio (SDK v1, an agentctl started apart): progress while it waits, then the approved call runs', async () => {
    const apart = await world.session('kanban-task', 'task-stdio', false);
    const client = new ClientV1({ name: 'progress stdio', version: '1.0.0' });
    const transport = new StdioTransportV1({
      command: process.execPath,
      args: [...agentctlArgs(), '--stdio', '--backend-url', apart.agentctl!.backend_url],
      // Its own setting, as an agentctl started by hand reads it.
      env: { PATH: process.env.PATH ?? '', TOOLPORT_SESSION_TOKEN: apart.agentctl!.session_token, TOOLPORT_APPROVAL_PROGRESS_MS: '100' },
      cwd: world.root,
      stderr: 'ignore',
    });
    await client.connect(transport);
    try {
      await eventually(async () => (await client.listTools()).tools.some((tool) => tool.name === ADD), 10_000, 'the tool listed over stdio');
      const seen: number[] = [];
      const call = client.callTool({ name: ADD, arguments: { tag: 'stdio' } }, undefined, { onprogress: (progress) => void seen.push(progress.progress) });
      const id = await waiting();
      await eventually(() => seen.length >= 2, 10_000, 'two progress notifications over stdio');
      expect(await run(['approval', 'approve', id])).toMatchObject({ code: 0 });
      expect(resultText((await call) as CallToolResult)).toBe('tagged stdio');
      expect(seen.slice(0, 2)).toEqual([1, 2]);
    } finally {
      await client.close();
    }
  });

  it('a call without a progressToken gets no progress, however long it waits', async () => {
    const agent = await world.agent(session);
    let progress = 0;
    // Replaces the SDK's own handler, which would drop a notification naming no token of its.
    agent.client.setNotificationHandler(ProgressNotificationSchema, () => {
      progress++;
    });
    const call = agent.call(ADD, { tag: 'quiet' });
    const id = await waiting();
    // Ten intervals of waiting: a call that asked would have had its notifications by now.
    await new Promise((resolve) => setTimeout(resolve, 1000));
    expect(await run(['approval', 'approve', id])).toMatchObject({ code: 0 });
    expect(resultText(await call)).toBe('tagged quiet');
    expect(progress).toBe(0);
    await agent.close();
  });
});
