import type { BackendLink } from '../../src/application/ports/backend-link';
import { InvocationError } from '../../src/domain/errors';
import type { SessionIdentity } from '../../src/domain/session';
import { hangingInvoke, waitUntil, type ScriptedBackend } from '../support/test-backend';

/** One BackendLink adapter wired to a ScriptedBackend, with a way to take the backend down. */
export interface BackendLinkFixture {
  link: BackendLink;
  backend: ScriptedBackend;
  /** The backend goes away: the connection drops and new ones are refused. */
  goDown(): Promise<void>;
  /** The backend is reachable again. */
  comeBack(): Promise<void>;
  cleanup(): Promise<void>;
}

export type BackendLinkFixtureFactory = () => Promise<BackendLinkFixture>;

const HELLO = { controlUrl: 'http://127.0.0.1:9/' };

async function connected(fixture: BackendLinkFixture): Promise<SessionIdentity[]> {
  const sessions: SessionIdentity[] = [];
  fixture.link.onConnected((session) => sessions.push(session));
  fixture.link.connect(HELLO);
  await waitUntil(() => sessions.length > 0, 3000, 'the first connection');
  return sessions;
}

async function rejection(promise: Promise<unknown>): Promise<InvocationError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InvocationError) return error;
    throw error;
  }
  throw new Error('expected the call to fail');
}

/**
 * The BackendLink contract (docs/invocation.md as agentctl sees them), run with `describe.each`
 * over `[name, factory]` rows; a new adapter joins by adding one row.
 */
export function describeBackendLinkContract(rows: Array<[string, BackendLinkFixtureFactory]>): void {
  describe.each(rows)('BackendLink contract: %s', (_name, factory) => {
    let fixture: BackendLinkFixture;
    beforeEach(async () => {
      fixture = await factory();
    });
    afterEach(async () => {
      await fixture.cleanup();
    });

    it('sends hello first and reports the backend identity on connect', async () => {
      fixture.backend.identity = { task_id: 't-9', session_id: 's-9', workspace_id: 'w-9', surface: 'office-task' };
      const sessions = await connected(fixture);
      expect(sessions).toEqual([{ task_id: 't-9', session_id: 's-9', workspace_id: 'w-9', surface: 'office-task' }]);
      expect(fixture.backend.hellos).toEqual([HELLO]);
      expect(fixture.link.isConnected()).toBe(true);
    });

    it('pulls the full snapshot as the backend sent it', async () => {
      await connected(fixture);
      await expect(fixture.link.listPluginTools()).resolves.toEqual(fixture.backend.catalog);
    });

    it('invokes a tool and passes a plugin error result through as a result', async () => {
      await connected(fixture);
      const ok = await fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: { value: 'x' } });
      expect(ok).toEqual({ invocationId: 'inv-add_tag', text: '{"value":"x"}', structuredContent: null, isError: false });
      fixture.backend.onInvoke = async () => ({ invocationId: 'i2', text: 'plugin says no', structuredContent: { why: 'no' }, isError: true });
      const failed = await fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} });
      expect(failed).toEqual({ invocationId: 'i2', text: 'plugin says no', structuredContent: { why: 'no' }, isError: true });
    });

    it('turns a backend refusal into the §6 code the agent sees', async () => {
      await connected(fixture);
      fixture.backend.onInvoke = async () => {
        throw new InvocationError('PLUGIN_BUSY', 'acme.tools has 32 calls in flight');
      };
      const error = await rejection(fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} }));
      expect(error.message).toBe('acme.tools has 32 calls in flight');
      expect(error.code).toBe('PLUGIN_BUSY');
    });

    it('cancels a call at the backend when the caller aborts', async () => {
      await connected(fixture);
      fixture.backend.onInvoke = hangingInvoke;
      const abort = new AbortController();
      const call = fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} }, abort.signal);
      await waitUntil(() => fixture.backend.invokes.length === 1, 2000, 'the invoke');
      abort.abort();
      expect((await rejection(call)).code).toBe('CANCELLED');
      expect(await fixture.backend.waitForCancels(1, 1000)).toBeLessThan(1000);
    });

    it('ends a pending call at once when the link drops, and never re-sends it', async () => {
      await connected(fixture);
      fixture.backend.onInvoke = hangingInvoke;
      const call = fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} });
      await waitUntil(() => fixture.backend.invokes.length === 1, 2000, 'the invoke');
      const started = Date.now();
      await fixture.goDown();
      const error = await rejection(call);
      expect(Date.now() - started).toBeLessThan(1000);
      expect(error.code).toBe('BACKEND_UNAVAILABLE');
      expect(error.message).toMatch(/the call may have run$/);
      await fixture.comeBack();
      await waitUntil(() => fixture.link.isConnected(), 4000, 'the reconnect');
      expect(fixture.backend.invokes).toHaveLength(1);
    });

    it('fails calls at once while the backend is down, then reconnects with a fresh hello', async () => {
      const sessions = await connected(fixture);
      await fixture.goDown();
      await waitUntil(() => !fixture.link.isConnected(), 2000, 'the drop');
      const started = Date.now();
      const error = await rejection(fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} }));
      expect(Date.now() - started).toBeLessThan(1000);
      expect(error.code).toBe('BACKEND_UNAVAILABLE');
      expect(fixture.backend.invokes).toHaveLength(0);
      await fixture.comeBack();
      await waitUntil(() => sessions.length === 2, 4000, 'the second connection');
      expect(fixture.backend.hellos).toHaveLength(2);
      await expect(fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} })).resolves.toMatchObject({ isError: false });
    });

    it('stops for good on close', async () => {
      await connected(fixture);
      fixture.backend.onInvoke = hangingInvoke;
      const call = fixture.link.invokePluginTool({ pluginId: 'acme.tools', localName: 'add_tag', arguments: {} });
      await waitUntil(() => fixture.backend.invokes.length === 1, 2000, 'the invoke');
      const failure = rejection(call);
      await fixture.link.close();
      expect((await failure).code).toBe('BACKEND_UNAVAILABLE');
      expect(fixture.link.isConnected()).toBe(false);
      await expect(fixture.link.listPluginTools()).rejects.toBeInstanceOf(InvocationError);
    });
  });
}
