import { authenticateRawLink, openLink, openRawLink } from '../../support/clients/raw-link';
import { ScriptedBackend, TestBackendServer } from '../../support/test-backend';

/** The backend's §7 endpoint as a peer without agentctl's code sees it. */
describe('WsAgentctlEndpoint', () => {
  let server: TestBackendServer;
  let backend: ScriptedBackend;

  beforeEach(async () => {
    backend = new ScriptedBackend();
    server = await TestBackendServer.start(backend);
  });

  afterEach(async () => {
    await server.stop();
  });

  const url = (): string => `ws://127.0.0.1:${server.port}/api/v1/agentctl/ws`;

  it('refuses a request over a call’s size, unparsed, answering its id with INVALID_ARGUMENTS', async () => {
    const { socket: ws, next, request } = await openLink(url(), backend.sessionToken);
    expect(await request('h', 'agentctl.hello', {})).toMatchObject({ id: 'h', type: 'response' });
    const big = JSON.stringify({
      id: 'big-1',
      type: 'request',
      action: 'mcp.invoke_plugin_tool',
      payload: { plugin_id: 'acme.tools', local_name: 'add_tag', arguments: { value: 'x'.repeat(5 * 1024 * 1024) } },
    });
    ws.send(big);
    expect(await next()).toEqual({
      id: 'big-1',
      type: 'error',
      payload: {
        code: 'BAD_REQUEST',
        message: expect.stringMatching(/^\[INVALID_ARGUMENTS\] a request of \d+ bytes is over the 4259840-byte limit/),
        invocation_code: 'INVALID_ARGUMENTS',
      },
    });
    expect(backend.invokes).toEqual([]);
    ws.close();
  });

  it('records a refused call report for the session of the link, refuses a malformed one, and keeps the link on an unknown action', async () => {
    const { socket: ws, request } = await openLink(url(), backend.sessionToken);
    expect(await request('h', 'agentctl.hello', {})).toMatchObject({ id: 'h', type: 'response' });
    expect(await request('r1', 'mcp.report_refused_call', { name: 'kandev_nope', code: 'NOT_FOUND' })).toEqual({ id: 'r1', type: 'response', payload: {} });
    expect(await request('r2', 'mcp.report_refused_call', { name: 'kandev_nope', code: 'PLUGIN_BUSY' })).toMatchObject({
      id: 'r2',
      type: 'error',
      payload: { code: 'BAD_REQUEST' },
    });
    expect(await request('r3', 'mcp.report_refused_call', { name: 'kandev_nope', code: 'NOT_FOUND', session_id: 'other' })).toMatchObject({
      id: 'r3',
      type: 'error',
      payload: { code: 'FORBIDDEN' },
    });
    expect(backend.refusals).toEqual([{ session: { ...backend.identity, profile: 'default' }, report: { name: 'kandev_nope', code: 'NOT_FOUND' } }]);
    // What an older backend answers a report it does not know: an error, and the link stays.
    expect(await request('u', 'mcp.report_something_newer', {})).toMatchObject({ id: 'u', type: 'error', payload: { code: 'NOT_FOUND' } });
    expect(await request('h2', 'mcp.list_plugin_tools', null)).toMatchObject({ id: 'h2', type: 'response' });
    ws.close();
  });

  it('binds the session profile from the backend, and refuses a payload naming another one', async () => {
    backend.profile = 'narrow';
    const { socket: ws, request } = await openLink(url(), backend.sessionToken);
    expect(await request('h', 'agentctl.hello', {})).toMatchObject({ id: 'h', type: 'response' });
    expect(await request('r1', 'mcp.report_refused_call', { name: 'kandev_nope', code: 'NOT_FOUND', profile: 'default' })).toMatchObject({
      id: 'r1',
      type: 'error',
      payload: { code: 'FORBIDDEN' },
    });
    expect(await request('r2', 'mcp.report_refused_call', { name: 'kandev_nope', code: 'NOT_FOUND', profile: 'narrow' })).toEqual({
      id: 'r2',
      type: 'response',
      payload: {},
    });
    expect(backend.refusals.map((r) => r.session)).toEqual([{ ...backend.identity, profile: 'narrow' }]);
    ws.close();
  });

  describe('authentication (SCRAM-SHA-256 in the first two frames)', () => {
    it('binds the link once both sides are proven, and not before', async () => {
      const link = await openRawLink(url());
      expect(await authenticateRawLink(link, backend.sessionToken)).toBeUndefined();
      expect(await link.request('h', 'agentctl.hello', {})).toMatchObject({ id: 'h', type: 'response', payload: { session: backend.identity } });
      link.socket.close();
    });

    it.each([
      ['a hello before authenticating', 'agentctl.hello', {}],
      ['a tool call before authenticating', 'mcp.invoke_plugin_tool', { plugin_id: 'acme.tools', local_name: 'add_tag', arguments: {} }],
      ['auth.finish first', 'auth.finish', { message: 'c=biws,r=x,p=AAAA' }],
      ['another mechanism', 'auth.begin', { mechanism: 'PLAIN', message: 'n,,n=x,r=y' }],
    ])('refuses %s: UNAUTHORIZED, then the close (4401)', async (_label, action, payload) => {
      const link = await openRawLink(url());
      expect(await link.request('1', action, payload)).toMatchObject({ type: 'error', payload: { code: 'UNAUTHORIZED' } });
      expect((await link.closed).code).toBe(4401);
      expect(backend.hellos).toEqual([]);
      expect(backend.invokes).toEqual([]);
    });

    it('refuses a wrong token at the proof, saying no more than for an unknown session', async () => {
      const wrong = await openRawLink(url());
      const refused = await authenticateRawLink(wrong, 'not-the-token');
      expect(refused).toMatchObject({ type: 'error', payload: { code: 'UNAUTHORIZED', message: '[SESSION_NOT_LIVE] unknown or ended session' } });
      expect((await wrong.closed).code).toBe(4401);
    });

    it('closes a connection that does not authenticate in time', async () => {
      await server.stop();
      server = await TestBackendServer.start(backend, { authTimeoutMs: 200 });
      const link = await openRawLink(url());
      expect(await link.next()).toMatchObject({ type: 'error', payload: { code: 'UNAUTHORIZED', message: expect.stringContaining('took too long') } });
      expect((await link.closed).code).toBe(4401);
    });

    it('reads no large frame before authentication', async () => {
      const link = await openRawLink(url());
      link.socket.send(
        JSON.stringify({ id: 'big', type: 'request', action: 'auth.begin', payload: { mechanism: 'SCRAM-SHA-256', message: 'x'.repeat(100_000) } }),
      );
      // Refused at the frame's header (over the 4 KiB of an auth frame) and cut at once: nothing of it read, no close handshake.
      const closed = await link.closed;
      expect([1006, 1009]).toContain(closed.code);
      await expect(link.next()).rejects.toThrow('closed before the next frame');
    });
  });
});
