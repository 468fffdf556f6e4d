import { readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { GrpcPluginRuntime, type GrpcPluginRuntimeOptions } from '../../../../src/adapters/grpc/grpc-plugin-runtime';
import type { PluginInstance, PluginLaunchSpec, ServerToolListing } from '../../../../src/application/ports/plugin-runtime';
import { PluginStartError } from '../../../../src/domain/errors';
import { CapturingLogger } from '../../../support/capturing-logger';
import { StatusRecorder } from '../../../support/status-recorder';
import { newDataDir, removeDataDirs } from '../support/plugin-specs';
import { leftoverProcesses } from '../support/proc-scan';
import { invocationError, toolCall } from '../support/runtime-harness';

// Real processes on a shared 2-core machine: generous per-test bounds, tight assertions inside.
jest.setTimeout(20_000);

const FIXTURE_DIR = resolve(__dirname, '../../../fixtures/mcp-servers');
const SCRIPT = join(FIXTURE_DIR, 'fixture-mcp-server.mjs');
const OPTIONS: GrpcPluginRuntimeOptions = {
  startTimeoutMs: 5000,
  healthIntervalMs: 100,
  restartBackoffMs: 20,
  env: { PATH: process.env.PATH, LANG: 'C.UTF-8', SECRET_OF_BACKEND: 'no' },
};

/** The MCP server side of the plugin runtime, against a fixture server of our own. */
describe('GrpcPluginRuntime with an MCP server (mcp-stdio)', () => {
  let runtime: GrpcPluginRuntime;
  let logger: CapturingLogger;
  let recorder: StatusRecorder;
  const pids = new Set<number>();

  function use(options: Partial<GrpcPluginRuntimeOptions> = {}): void {
    logger = new CapturingLogger();
    runtime = new GrpcPluginRuntime(logger, { ...OPTIONS, ...options });
    recorder = new StatusRecorder(runtime);
  }

  function spec(env: Record<string, string> = {}, listings: ServerToolListing[] = []): PluginLaunchSpec {
    return {
      pluginId: 'acme.fixture',
      version: '1.0.0',
      installDir: FIXTURE_DIR,
      executable: process.execPath,
      args: [SCRIPT],
      dataDir: newDataDir(),
      mcpServer: { env },
      onServerTools: (listing) => listings.push(listing),
    };
  }

  async function start(launch: PluginLaunchSpec): Promise<PluginInstance> {
    const instance = await runtime.start(launch);
    pids.add(instance.pid()!);
    return instance;
  }

  beforeEach(() => use());
  afterEach(async () => {
    recorder.dispose();
    await runtime.stopAll();
    removeDataDirs();
    expect(leftoverProcesses([SCRIPT], pids)).toEqual([]);
    pids.clear();
  });

  it('initializes with 2025-11-25 and no client capabilities, and reports every page of tools/list before start resolves', async () => {
    const listings: ServerToolListing[] = [];
    const logFile = join(newDataDir(), 'init.log');
    await start(spec({ FIXTURE_LOG_INIT: logFile }, listings));
    expect(listings).toHaveLength(1);
    expect(listings[0]!.server).toEqual({ name: 'fixture-server', version: '0.3.1' });
    expect(listings[0]!.tools.map((tool) => tool.name)).toContain('bad desc');
    expect(listings[0]!.tools).toHaveLength(13);
    const sent = JSON.parse(readFileSync(logFile, 'utf8').trim()) as Record<string, unknown>;
    expect(sent).toMatchObject({ protocolVersion: '2025-11-25', capabilities: {} });
    expect(sent.capabilities).toEqual({});
  });

  it('lists once more when tools/list_changed arrives before the first list is answered, and reports the last list', async () => {
    const listings: ServerToolListing[] = [];
    await start(spec({ FIXTURE_LIST_CHANGED: 'early' }, listings));
    expect(listings).toHaveLength(1);
    expect(listings[0]!.tools.map((tool) => tool.name)).toContain('added_later');
  });

  it('accepts a server answering 2025-03-26 and fails the start of one answering older, with stderr in the error', async () => {
    await start(spec({ FIXTURE_PROTOCOL: '2025-03-26' }));
    const error = await runtime.start(spec({ FIXTURE_PROTOCOL: '2024-11-05' })).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PluginStartError);
    expect((error as PluginStartError).message).toMatch(/MCP protocol "2024-11-05", older than 2025-03-26/);
    expect((error as PluginStartError).stderr).toContain('fixture MCP server listening on stdio');
  });

  it('fails the start of a server that never answers initialize within the start timeout, leaving nothing running', async () => {
    use({ startTimeoutMs: 700 });
    const error = await runtime.start(spec({ FIXTURE_SILENT: '1' })).catch((failure: unknown) => failure);
    expect(error).toBeInstanceOf(PluginStartError);
    expect((error as PluginStartError).code).toBe('PLUGIN_START_FAILED');
    expect((error as PluginStartError).message).toMatch(/did not answer initialize and tools\/list within 700 ms/);
  });

  it('sends the six toolport/* _meta keys and traceparent, with the server name, and passes the result on', async () => {
    const instance = await start(spec());
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const call = toolCall('echo_meta', { a: 1 }, { trace: { traceparent } });
    const result = await runtime.invoke(instance, call);
    expect(JSON.parse(result.structuredContentJson)).toEqual({
      meta: {
        'toolport/invocation_id': call.invocationId,
        'toolport/task_id': 'task-1',
        'toolport/session_id': 'session-1',
        'toolport/workspace_id': 'ws-1',
        'toolport/surface': 'kanban-task',
        'toolport/profile': 'default',
        traceparent,
      },
      args: { a: 1 },
    });
    expect(result.isError).toBe(false);
    expect(JSON.parse(result.contentJson!)).toEqual([{ type: 'text', text: result.text }]);
  });

  it('calls by the original server name and multiplexes calls on the one connection', async () => {
    const instance = await start(spec());
    const first = runtime.invoke(instance, toolCall('slow_call', { id: 'one' }, { serverName: 'Slow.Call' }));
    const second = runtime.invoke(instance, toolCall('slow_call', { id: 'two' }, { serverName: 'Slow.Call' }));
    // Both wait at the server; a third call is answered meanwhile, then releases them in reverse order.
    await runtime.invoke(instance, toolCall('release', { id: 'two' }));
    expect((await second).text).toBe('released two');
    await runtime.invoke(instance, toolCall('release', { id: 'one' }));
    expect((await first).text).toBe('released one');
  });

  it('sends notifications/cancelled for a cancelled call and for one past its deadline', async () => {
    const instance = await start(spec());
    const controller = new AbortController();
    const cancelledCall = runtime.invoke(instance, toolCall('slow_call', { id: 'c' }, { serverName: 'Slow.Call', signal: controller.signal }));
    controller.abort();
    expect((await invocationError(cancelledCall)).code).toBe('CANCELLED');
    expect((await invocationError(runtime.invoke(instance, toolCall('slow_call', { id: 't' }, { serverName: 'Slow.Call', timeoutMs: 200 })))).code).toBe(
      'TOOL_TIMEOUT',
    );
    const seen = await runtime.invoke(instance, toolCall('cancellations'));
    expect(JSON.parse(seen.structuredContentJson).ids).toHaveLength(2);
  });

  it('passes content blocks verbatim with no text block, isError as a tool error, and a JSON-RPC error as PLUGIN_ERROR', async () => {
    const instance = await start(spec());
    const picture = await runtime.invoke(instance, toolCall('picture'));
    expect(picture.text).toBe('');
    expect(JSON.parse(picture.contentJson!)).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///x.txt', name: 'x', extra: { kept: true } },
    ]);
    const failed = await runtime.invoke(instance, toolCall('fails'));
    expect(failed).toMatchObject({ isError: true, text: 'it went wrong' });
    const error = await invocationError(runtime.invoke(instance, toolCall('rpc_error')));
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toMatch(/JSON-RPC error -32000: server says no/);
  });

  it('refuses a call to a tool the server no longer lists as PLUGIN_ERROR, without asking it', async () => {
    const instance = await start(spec());
    const error = await invocationError(runtime.invoke(instance, toolCall('gone', {}, { serverName: 'gone' })));
    expect(error.code).toBe('PLUGIN_ERROR');
    expect(error.message).toMatch(/no longer has the tool "gone"/);
  });

  it('answers a server request with -32601 and logs notifications/message at its level', async () => {
    const instance = await start(spec());
    const answer = await runtime.invoke(instance, toolCall('client_answer'));
    expect(JSON.parse(answer.structuredContentJson).answer).toMatchObject({ code: -32601 });
    expect(logger.records).toContainEqual(
      expect.objectContaining({ level: 'warn', message: 'fixture is up', fields: expect.objectContaining({ plugin_id: 'acme.fixture', stream: 'mcp' }) }),
    );
  });

  it('gives the server the allow-list, HOME and TOOLPORT_PLUGIN_DATA_DIR, then runtime.env, and no go-plugin variable', async () => {
    const instance = await start(spec({ MEMORY: 'here', LANG: 'C' }));
    const result = JSON.parse((await runtime.invoke(instance, toolCall('env'))).structuredContentJson);
    expect(result.keys).toEqual(['HOME', 'LANG', 'MEMORY', 'PATH', 'PWD', 'TMPDIR', 'TOOLPORT_PLUGIN_DATA_DIR']);
    expect(result.memory).toBe('here');
    expect(result.cwd).toBe(FIXTURE_DIR);
  });

  it('re-lists after the server says its tools changed, reporting the new list, and on relistTools', async () => {
    const listings: ServerToolListing[] = [];
    const instance = await start(spec({}, listings));
    await runtime.invoke(instance, toolCall('relist'));
    const again = await runtime.relistTools(instance);
    expect(again.tools.map((tool) => tool.name)).toContain('added_later');
    expect(listings.length).toBeGreaterThanOrEqual(2);
    expect(listings[listings.length - 1]!.tools.map((tool) => tool.name)).toContain('added_later');
  });

  it('puts a server that stops answering ping in error after three failures and restarts it', async () => {
    const instance = await start(spec({ FIXTURE_PING: 'ignore' }));
    const down = await recorder.waitFor((event) => event.instance.instanceId === instance.instanceId && event.status === 'error');
    expect(down.cause).toBe('unhealthy');
    const at = recorder.events.indexOf(down);
    await recorder.waitFor((event, index) => index > at && event.instance.instanceId === instance.instanceId && event.status === 'active');
    const restarted = instance.pid();
    if (restarted !== undefined) pids.add(restarted);
  });

  it('stops a server by closing its stdin, and one that ignores that with SIGTERM', async () => {
    const polite = await start(spec());
    await runtime.stop(polite);
    expect(polite.pid()).toBeUndefined();
    const stubborn = await start(spec({ FIXTURE_IGNORE_STDIN_END: '1' }));
    await runtime.stop(stubborn);
    expect(stubborn.pid()).toBeUndefined();
  });
});
