import WebSocket from 'ws';
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

  async function openLink(): Promise<{ ws: WebSocket; next(): Promise<any> }> {
    const ws = new WebSocket(`ws://127.0.0.1:${server.port}/api/v1/agentctl/ws`, { headers: { Authorization: `Bearer ${backend.sessionToken}` } });
    const frames: any[] = [];
    const waiting: Array<(frame: any) => void> = [];
    ws.on('message', (data) => {
      const frame = JSON.parse(String(data));
      const wake = waiting.shift();
      if (wake) wake(frame);
      else frames.push(frame);
    });
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject));
    return { ws, next: () => (frames.length > 0 ? Promise.resolve(frames.shift()) : new Promise((resolve) => waiting.push(resolve))) };
  }

  it('refuses a request over a call’s size, unparsed, answering its id with INVALID_ARGUMENTS', async () => {
    const { ws, next } = await openLink();
    ws.send(JSON.stringify({ id: 'h', type: 'request', action: 'agentctl.hello', payload: {} }));
    expect(await next()).toMatchObject({ id: 'h', type: 'response' });
    const big = JSON.stringify({ id: 'big-1', type: 'request', action: 'mcp.invoke_plugin_tool', payload: { plugin_id: 'acme.tools', local_name: 'add_tag', arguments: { value: 'x'.repeat(5 * 1024 * 1024) } } });
    ws.send(big);
    expect(await next()).toEqual({
      id: 'big-1',
      type: 'error',
      payload: { code: 'BAD_REQUEST', message: expect.stringMatching(/^\[INVALID_ARGUMENTS\] a request of \d+ bytes is over the 4259840-byte limit/), invocation_code: 'INVALID_ARGUMENTS' },
    });
    expect(backend.invokes).toEqual([]);
    ws.close();
  });
});
