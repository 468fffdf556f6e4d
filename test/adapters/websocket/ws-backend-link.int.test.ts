import { mkdtempSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { WsBackendLink, type WsBackendLinkOptions } from '../../../src/adapters/websocket/ws-backend-link';
import { InvocationError } from '../../../src/domain/errors';
import { CapturingLogger } from '../../support/capturing-logger';
import { echoInvoke, hangingInvoke, ScriptedBackend, TestBackendServer, waitUntil } from '../../support/test-backend';

const HELLO = { controlUrl: 'http://127.0.0.1:9' };
const CALL = { pluginId: 'acme.tools', localName: 'add_tag', arguments: {} };

describe('WsBackendLink', () => {
  const cleanups: Array<() => Promise<void> | void> = [];
  afterEach(async () => {
    for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
  });

  async function backend(): Promise<TestBackendServer> {
    const server = await TestBackendServer.start(new ScriptedBackend());
    cleanups.push(() => server.stop());
    return server;
  }

  function link(options: Partial<WsBackendLinkOptions>): WsBackendLink {
    const created = new WsBackendLink({
      sessionToken: 'session-token',
      requestTimeoutMs: 2000,
      invokeTimeoutMs: 5000,
      logger: new CapturingLogger(),
      initialBackoffMs: 10,
      maxBackoffMs: 100,
      ...options,
    });
    cleanups.push(() => created.close());
    return created;
  }

  it('dials with the session token as a bearer and is refused with a bad one', async () => {
    const server = await backend();
    const logger = new CapturingLogger();
    const refused = link({ backendUrl: server.url, sessionToken: 'wrong', logger });
    refused.connect(HELLO);
    await waitUntil(() => logger.withMessage('backend link closed').length >= 2, 3000, 'two refused dials');
    expect(refused.isConnected()).toBe(false);
    expect(server.backend.hellos).toHaveLength(0);
    expect(logger.text()).not.toContain('wrong');
  });

  it('re-reads <data-dir>/backend.json on every dial and follows a backend that moved', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'toolport-link-'));
    cleanups.push(() => rmSync(dataDir, { recursive: true, force: true }));
    const writeInfo = (url: string): void => {
      writeFileSync(join(dataDir, 'backend.json.tmp'), JSON.stringify({ url, pid: process.pid }));
      renameSync(join(dataDir, 'backend.json.tmp'), join(dataDir, 'backend.json'));
    };
    const first = await backend();
    writeInfo(first.url);
    const moving = link({ backendUrl: 'http://127.0.0.1:9', dataDir });
    const connections: string[] = [];
    moving.onConnected((session) => connections.push(session.session_id));
    moving.connect(HELLO);
    await waitUntil(() => connections.length === 1, 3000, 'the first connection');
    await first.stop();
    const second = await backend();
    writeInfo(second.url);
    await waitUntil(() => connections.length === 2, 4000, 'the connection to the moved backend');
    expect(second.backend.hellos).toHaveLength(1);
  });

  it('gives up on a call the backend never answers, and tells the backend with a cancel frame', async () => {
    const server = await backend();
    server.backend.onInvoke = hangingInvoke;
    const slow = link({ backendUrl: server.url, invokeTimeoutMs: 150 });
    slow.connect(HELLO);
    await waitUntil(() => slow.isConnected(), 3000, 'the connection');
    const error = await slow.invokePluginTool(CALL).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InvocationError);
    expect(error).toMatchObject({ code: 'BACKEND_UNAVAILABLE', message: expect.stringMatching(/^backend did not answer within 150 ms/) });
    // The backend's real endpoint aborts the call only for a cancel frame naming its request.
    expect(await server.backend.waitForCancels(1, 1000)).toBeLessThan(1000);
    expect(server.backend.invokes).toHaveLength(1);
  });

  it('does not time a call while the backend holds it for an approval, and times it again once released', async () => {
    const server = await backend();
    server.backend.onInvoke = async (request, _signal, onHold) => {
      onHold?.(true, 5000);
      // Held well past the invoke timeout (150 ms), as an operator takes their time.
      await new Promise((resolve) => setTimeout(resolve, 600));
      onHold?.(false, 0);
      return echoInvoke(request, _signal);
    };
    const held = link({ backendUrl: server.url, invokeTimeoutMs: 150 });
    held.connect(HELLO);
    await waitUntil(() => held.isConnected(), 3000, 'the connection');
    const answer = await held.invokePluginTool(CALL);
    expect(answer.isError).toBe(false);
    expect(server.backend.cancelled).toHaveLength(0);

    // Released, the call has its deadline again: a backend that then never answers is given up on.
    server.backend.onInvoke = async (request, signal, onHold) => {
      onHold?.(true, 5000);
      onHold?.(false, 0);
      return hangingInvoke(request, signal);
    };
    const error = await held.invokePluginTool(CALL).catch((e: unknown) => e);
    expect(error).toMatchObject({ code: 'BACKEND_UNAVAILABLE', message: expect.stringMatching(/^backend did not answer within 150 ms/) });
  });

  it('ends a held call whose link drops as one that did not run', async () => {
    const server = await backend();
    server.backend.onInvoke = (request, signal, onHold) => {
      onHold?.(true, 5000);
      return hangingInvoke(request, signal);
    };
    const held = link({ backendUrl: server.url });
    held.connect(HELLO);
    await waitUntil(() => held.isConnected(), 3000, 'the connection');
    const call = held.invokePluginTool(CALL).catch((e: unknown) => e);
    await waitUntil(() => server.backend.invokes.length === 1, 3000, 'the call at the backend');
    // The held notice went out as the backend took the call: it reaches the agentctl before the close does.
    await server.stop();
    expect(await call).toMatchObject({ code: 'BACKEND_UNAVAILABLE', message: expect.stringContaining('did not run') });
  });

  it('refuses to send a request larger than the 8 MiB frame limit', async () => {
    const server = await backend();
    const sender = link({ backendUrl: server.url });
    sender.connect(HELLO);
    await waitUntil(() => sender.isConnected(), 3000, 'the connection');
    const error = await sender.invokePluginTool({ ...CALL, arguments: { value: 'x'.repeat(8 * 1024 * 1024) } }).catch((e: unknown) => e);
    expect((error as InvocationError).code).toBe('INVALID_ARGUMENTS');
    expect(server.backend.invokes).toHaveLength(0);
  });

  it('reports a refused call over the link, fire and forget, never waiting for an answer', async () => {
    const server = await backend();
    const reporter = link({ backendUrl: server.url });
    reporter.connect(HELLO);
    await waitUntil(() => reporter.isConnected());
    reporter.reportRefusedCall({ name: 'kandev_' + 'x'.repeat(400), code: 'NOT_FOUND' });
    reporter.reportRefusedCall({ name: 'kandev_acme_tools_add_tag', code: 'INVALID_ARGUMENTS', tool: { pluginId: 'acme.tools', localName: 'add_tag' } });
    await waitUntil(() => server.backend.refusals.length === 2, 2000, 'two reports');
    expect(server.backend.refusals.map((r) => r.report)).toEqual([
      { name: ('kandev_' + 'x'.repeat(400)).slice(0, 256), code: 'NOT_FOUND' },
      { name: 'kandev_acme_tools_add_tag', code: 'INVALID_ARGUMENTS', tool: { pluginId: 'acme.tools', localName: 'add_tag' } },
    ]);
    expect(server.backend.refusals[0]!.session.session_id).toBe('session-1');
  });

  it('keeps the link when the backend answers a report with an error (an older backend that does not know it)', async () => {
    const server = await backend();
    server.backend.refused = () => {
      throw new Error('unknown action');
    };
    const logger = new CapturingLogger();
    const reporter = link({ backendUrl: server.url, logger });
    reporter.connect(HELLO);
    await waitUntil(() => reporter.isConnected());
    reporter.reportRefusedCall({ name: 'kandev_nope', code: 'NOT_FOUND' });
    expect(await reporter.invokePluginTool(CALL)).toMatchObject({ isError: false });
    expect(reporter.isConnected()).toBe(true);
    expect(logger.withMessage('backend link closed')).toHaveLength(0);
  });

  it('drops a report while the link is down', async () => {
    const server = await backend();
    const reporter = link({ backendUrl: server.url });
    reporter.reportRefusedCall({ name: 'kandev_nope', code: 'NOT_FOUND' });
    reporter.connect(HELLO);
    await waitUntil(() => reporter.isConnected());
    await reporter.invokePluginTool(CALL);
    expect(server.backend.refusals).toHaveLength(0);
  });
});
