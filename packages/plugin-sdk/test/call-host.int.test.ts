import { credentials, Metadata, Server, ServerCredentials } from '@grpc/grpc-js';
import { Scope } from '../src/generated/toolport/plugin/v1/host';
import { PluginClient, PluginService, type AgentToolContext, type InvokeAgentToolResponse } from '../src/generated/toolport/plugin/v1/plugin';
import { HostConnection } from '../src/host-client';
import { HostError } from '../src/host-error';
import type { CallHost } from '../src/host-types';
import { createPluginLogger } from '../src/plugin-logger';
import { toolDispatcher } from '../src/tool-dispatch';
import type { ToolHandler } from '../src/types';
import { FakeHost } from './support/fake-host';

const { SCOPE_INSTANCE: INSTANCE, SCOPE_WORKSPACE: WORKSPACE, SCOPE_TASK: TASK } = Scope;
const CONTEXT: AgentToolContext = { taskId: 'task-1', sessionId: 'sess-1', workspaceId: 'ws-a', surface: 'kanban-task', profile: 'reviewer' };

/**
 * What the SDK's handler host sends: the handler's own invocation id with GetConfig and with
 * workspace and task requests, none with its instance state and secrets. Real gRPC both ways:
 * the SDK's dispatcher serves InvokeAgentTool on 127.0.0.1:0, its Host client reaches a fake
 * host on a unix socket.
 */
describe("a tool handler's context.host", () => {
  let host: FakeHost;
  let connection: HostConnection;
  let server: Server;
  let client: PluginClient;
  /** Hosts handlers kept past their call, as work left running would. */
  const kept = new Map<string, CallHost>();

  const tools: Record<string, ToolHandler> = {
    touch_every_scope: async (_args, context) => {
      const first = await context.host.config<{ greeting: string }>();
      const again = await context.host.config<{ greeting: string }>();
      await context.host.state.get('counter');
      await context.host.secrets.set('token', 'refreshed');
      await context.host.workspace.state.set('shared', { n: 1 });
      await context.host.workspace.secrets.get('api-key');
      const page = await context.host.task.state.list({ prefix: 'draft/' });
      await context.host.task.secrets.delete('scratch');
      kept.set(context.invocationId, context.host);
      return { text: 'touched', structuredContent: { greeting: first.greeting, same: first === again, page: page.keys, profile: context.profile } };
    },
    read_config: async (_args, context) => {
      kept.set(context.invocationId, context.host);
      return { text: 'read', structuredContent: await context.host.config() };
    },
    scoped_values: async (_args, context) => ({
      text: 'values',
      structuredContent: {
        instance: await context.host.state.get('k'),
        workspace: await context.host.workspace.state.get('k'),
        task: await context.host.task.secrets.get('k'),
      },
    }),
  };

  beforeAll(async () => {
    host = await new FakeHost().start();
    host.configs.set('', { greeting: 'Hello' });
    host.configs.set('inv-1', { greeting: 'Bonjour' });
    host.configs.set('inv-2', { greeting: 'Hola' });
    connection = new HostConnection(host.env());
    server = new Server();
    const dispatch = toolDispatcher(tools, createPluginLogger('error'), new Set(), (id) => connection.forCall(id));
    server.addService(PluginService, { invokeAgentTool: dispatch });
    const port = await new Promise<number>((resolve, reject) =>
      server.bindAsync('127.0.0.1:0', ServerCredentials.createInsecure(), (error, bound) => (error ? reject(error) : resolve(bound))),
    );
    client = new PluginClient(`127.0.0.1:${port}`, credentials.createInsecure());
  });

  afterAll(async () => {
    client.close();
    connection.instance.close();
    server.forceShutdown();
    await host.close();
  });

  beforeEach(() => {
    host.seen.length = 0;
  });

  function invoke(invocationId: string, name: string, context: AgentToolContext | undefined = CONTEXT): Promise<InvokeAgentToolResponse> {
    return new Promise((resolve, reject) =>
      client.invokeAgentTool({ invocationId, name, argumentsJson: '{}', context }, new Metadata(), { deadline: Date.now() + 5000 }, (error, response) =>
        error ? reject(error) : resolve(response),
      ),
    );
  }

  it('names its own call with GetConfig and workspace/task requests, and no call with its instance state and secrets', async () => {
    const answer = await invoke('inv-1', 'touch_every_scope');
    expect(answer.isError).toBe(false);
    expect(host.calls()).toEqual([
      ['GetConfig', undefined, 'inv-1'],
      ['GetState', INSTANCE, ''],
      ['SetSecret', INSTANCE, ''],
      ['SetState', WORKSPACE, 'inv-1'],
      ['GetSecret', WORKSPACE, 'inv-1'],
      ['ListState', TASK, 'inv-1'],
      ['DeleteSecret', TASK, 'inv-1'],
    ]);
    expect(host.seen.every((request) => request.authorization === `Bearer ${host.token}`)).toBe(true);
    // The merged configuration of the call's workspace, read once for the whole call.
    expect(JSON.parse(answer.structuredContentJson)).toEqual({ greeting: 'Bonjour', same: true, page: ['draft/a'], profile: 'reviewer' });
  });

  it("reads each call's configuration afresh: a workspace override changes without a restart", async () => {
    expect(JSON.parse((await invoke('inv-1', 'read_config')).structuredContentJson)).toEqual({ greeting: 'Bonjour' });
    expect(JSON.parse((await invoke('inv-2', 'read_config')).structuredContentJson)).toEqual({ greeting: 'Hola' });
    expect(host.calls()).toEqual([
      ['GetConfig', undefined, 'inv-1'],
      ['GetConfig', undefined, 'inv-2'],
    ]);
  });

  it('gives each scope its own entries: the host answers what each request named', async () => {
    const values = JSON.parse((await invoke('inv-3', 'scoped_values')).structuredContentJson) as Record<string, unknown>;
    expect(values).toEqual({
      instance: { scope: INSTANCE, invocationId: '' },
      workspace: { scope: WORKSPACE, invocationId: 'inv-3' },
      task: JSON.stringify({ scope: TASK, invocationId: 'inv-3' }),
    });
  });

  it('after its call, keeps instance access for work left running, while the call-bound requests are refused by the host', async () => {
    await invoke('inv-4', 'read_config');
    host.finished.add('inv-4');
    const later = kept.get('inv-4')!;
    host.seen.length = 0;
    await expect(later.state.set('later', 1)).resolves.toBeUndefined();
    await expect(later.secrets.get('token')).resolves.toBeDefined();
    const refused = await later.workspace.state.get('shared').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(HostError);
    expect(refused).toMatchObject({ code: 'PERMISSION_DENIED', message: 'the call inv-4 is not in flight to this process' });
    expect(host.calls()).toEqual([
      ['SetState', INSTANCE, ''],
      ['GetSecret', INSTANCE, ''],
      ['GetState', WORKSPACE, 'inv-4'],
    ]);
  });

  it("says the session's profile, and `default` when the host sends none", async () => {
    const profileOf = async (context: AgentToolContext) =>
      (JSON.parse((await invoke(`inv-p-${context.profile}`, 'touch_every_scope', context)).structuredContentJson) as { profile: string }).profile;
    expect(await profileOf(CONTEXT)).toBe('reviewer');
    expect(await profileOf({ ...CONTEXT, profile: '' })).toBe('default');
  });
});

describe('a host outside any handler', () => {
  let host: FakeHost;

  beforeAll(async () => {
    host = await new FakeHost().start();
    host.configs.set('', { greeting: 'Hello' });
  });
  afterAll(() => host.close());

  it('has instance access only: its requests name no call, and its configuration is read once per process', async () => {
    const instance = new HostConnection(host.env()).instance;
    try {
      expect('workspace' in instance || 'task' in instance).toBe(false);
      expect(await instance.config()).toEqual({ greeting: 'Hello' });
      expect(await instance.config()).toEqual({ greeting: 'Hello' });
      await instance.state.delete('k');
      await instance.secrets.get('k');
      expect(host.calls()).toEqual([
        ['GetConfig', undefined, ''],
        ['DeleteState', INSTANCE, ''],
        ['GetSecret', INSTANCE, ''],
      ]);
    } finally {
      instance.close();
    }
  });

  it('asks again after a failed configuration read instead of keeping the failure', async () => {
    const instance = new HostConnection(host.env()).instance;
    try {
      host.finished.add('');
      await expect(instance.config()).rejects.toMatchObject({ code: 'PERMISSION_DENIED' });
      host.finished.delete('');
      expect(await instance.config()).toEqual({ greeting: 'Hello' });
    } finally {
      instance.close();
    }
  });
});
