import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { Metadata } from '@grpc/grpc-js';
import { parseHandshake, type PluginEndpoint } from '../../../src/adapters/grpc/handshake';
import { listenerOwnershipProblem } from '../../../src/adapters/grpc/listener-ownership';
import type { InvokeAgentToolResponse } from '../../../src/adapters/grpc/generated/toolport/plugin/v1/plugin';
import { PluginConnection } from '../../../src/adapters/grpc/plugin-connection';
import { createSelfSignedCertificate } from '../src/protocol';
import { bundleFixture, type BundledFixture } from './support/bundle-fixture';
import { outcomeOf, type ChildOutcome } from './support/child-outcome';

// Real processes on a shared 2-core machine: a generous bound per test, exact assertions inside.
jest.setTimeout(20_000);

interface Started {
  child: ChildProcess;
  handshake: string;
  /** The `served` record the fixture logs: what serve() resolved. */
  served: { address: { network: string; address: string }; port: number };
}

/** Where the SDK listens, seen as the host sees it: its handshake parser, ownership check and client. */
describe('serve() listens where the host asks', () => {
  let fixture: BundledFixture;
  let socketDir: string;
  const children: ChildProcess[] = [];
  const hostCertificate = createSelfSignedCertificate();

  beforeAll(() => {
    fixture = bundleFixture('transport-plugin');
  });
  afterAll(() => fixture.remove());
  beforeEach(() => {
    socketDir = mkdtempSync(join(tmpdir(), 'tp-sock-'));
  });
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) {
        const exited = once(child, 'exit');
        child.kill('SIGKILL');
        await exited;
      }
    }
    rmSync(socketDir, { recursive: true, force: true });
  });

  function run(env: NodeJS.ProcessEnv): ChildProcess {
    // Its own process group, as the host starts plugins: the ownership check looks there.
    const child = spawn(process.execPath, [fixture.script], {
      env: { PATH: process.env.PATH, TOOLPORT_PLUGIN: 'toolport-plugin-v1', ...env },
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    children.push(child);
    return child;
  }

  async function start(env: NodeJS.ProcessEnv): Promise<Started> {
    const child = run(env);
    const served = new Promise<Started['served']>((resolve) => {
      createInterface({ input: child.stderr! }).on('line', (line) => {
        if (!line.startsWith('{')) return;
        const record = JSON.parse(line) as { msg: string } & Started['served'];
        if (record.msg === 'served') resolve({ address: record.address, port: record.port });
      });
    });
    const lines = createInterface({ input: child.stdout! });
    const [handshake] = (await once(lines, 'line')) as [string];
    lines.close();
    return { child, handshake, served: await served };
  }

  const failure = (env: NodeJS.ProcessEnv): Promise<ChildOutcome> => outcomeOf(run(env));

  function endpointOf(handshake: string): PluginEndpoint {
    const parsed = parseHandshake(handshake);
    if (!parsed.ok) throw new Error(parsed.reason);
    return parsed.endpoint;
  }

  /** One tool call through the host's own connection class. */
  async function invoke(endpoint: PluginEndpoint, name: string): Promise<InvokeAgentToolResponse> {
    const connection = new PluginConnection(endpoint, hostCertificate);
    try {
      expect(await connection.checkHealth(5000)).toBeNull();
      return await new Promise<InvokeAgentToolResponse>((resolve, reject) => {
        const request = { invocationId: 'inv-1', name, argumentsJson: '{}', context: undefined };
        connection.plugin.invokeAgentTool(request, new Metadata(), { deadline: Date.now() + 5000 }, (error, response) =>
          error ? reject(error) : resolve(response),
        );
      });
    } finally {
      connection.close();
    }
  }

  const callWhere = async (endpoint: PluginEndpoint): Promise<string> => (await invoke(endpoint, 'where')).text;

  it('with PLUGIN_UNIX_SOCKET_DIR, serves mutual TLS on a 0600 unix socket there, which the host parses, owns and calls', async () => {
    const { child, handshake, served } = await start({ PLUGIN_UNIX_SOCKET_DIR: socketDir, PLUGIN_CLIENT_CERT: hostCertificate.certPem });
    const match = /^1\|1\|unix\|(\/[^|]+)\|grpc\|([A-Za-z0-9+/]{51,})$/.exec(handshake);
    expect(match).not.toBeNull();
    const path = match![1];
    expect(path).toMatch(new RegExp(`^${socketDir}/plugin-[0-9a-f]{8}$`));
    expect(Buffer.byteLength(path)).toBeLessThan(100);
    expect(statSync(path).isSocket()).toBe(true);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(served).toEqual({ address: { network: 'unix', address: path }, port: 0 });

    const endpoint = endpointOf(handshake);
    expect(endpoint).toMatchObject({ network: 'unix', address: path, serverCertificate: expect.any(Buffer) });
    expect(listenerOwnershipProblem(endpoint, child.pid!)).toBeNull();
    expect(await callWhere(endpoint)).toBe('served inv-1');

    // SIGTERM: the SDK shuts its server down, which removes the socket file.
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    expect(await exited).toEqual([0, null]);
    expect(existsSync(path)).toBe(false);
  });

  it('serves plaintext on the unix socket when the host passed no client certificate', async () => {
    const { handshake } = await start({ PLUGIN_UNIX_SOCKET_DIR: socketDir });
    expect(handshake).toMatch(/^1\|1\|unix\|\/[^|]+\|grpc\|$/);
    const endpoint = endpointOf(handshake);
    expect(endpoint.serverCertificate).toBeUndefined();
    expect(await callWhere(endpoint)).toBe('served inv-1');
  });

  it.each([{}, { PLUGIN_UNIX_SOCKET_DIR: '' }])('without a socket folder (%j), serves on 127.0.0.1 as before, port and address alike', async (env) => {
    const { child, handshake, served } = await start({ ...env, PLUGIN_CLIENT_CERT: hostCertificate.certPem });
    const match = /^1\|1\|tcp\|127\.0\.0\.1:(\d+)\|grpc\|[A-Za-z0-9+/]{51,}$/.exec(handshake);
    expect(match).not.toBeNull();
    const port = Number(match![1]);
    expect(served).toEqual({ address: { network: 'tcp', address: `127.0.0.1:${port}` }, port });
    const endpoint = endpointOf(handshake);
    expect(listenerOwnershipProblem(endpoint, child.pid!)).toBeNull();
    expect(await callWhere(endpoint)).toBe('served inv-1');
  });

  it("sends a result's content blocks to the host as content_json, and a malformed block as an error result naming it", async () => {
    const { handshake } = await start({ PLUGIN_UNIX_SOCKET_DIR: socketDir, PLUGIN_CLIENT_CERT: hostCertificate.certPem });
    const endpoint = endpointOf(handshake);
    const picture = await invoke(endpoint, 'picture');
    expect(picture).toMatchObject({ text: 'a one-pixel picture', isError: false, structuredContentJson: '' });
    expect(JSON.parse(picture.contentJson)).toEqual([
      { type: 'image', data: 'iVBORw0KGgo=', mimeType: 'image/png' },
      { type: 'resource_link', uri: 'file:///pictures/pixel.png', name: 'pixel.png' },
    ]);
    expect(await invoke(endpoint, 'broken_picture')).toEqual({
      text: 'the tool returned content the agent cannot read: content[0].mimeType must be a string',
      structuredContentJson: '',
      contentJson: '',
      isError: true,
    });
  });

  it.each([
    ['a relative folder', () => 'run/sockets', () => 'PLUGIN_UNIX_SOCKET_DIR must be an absolute path, got "run/sockets"'],
    [
      'a folder too deep for a socket path',
      () => `/${'d'.repeat(90)}`,
      () => 'PLUGIN_UNIX_SOCKET_DIR is too long: a socket path in it would take 107 bytes (at most 99)',
    ],
    ['a folder that does not exist', () => join(socketDir, 'missing'), () => `PLUGIN_UNIX_SOCKET_DIR names no folder: ${socketDir}/missing`],
    ['a file instead of a folder', () => fixture.script, () => `PLUGIN_UNIX_SOCKET_DIR names no folder: ${fixture.script}`],
  ])('with %s, exits 1 before any handshake, naming the variable', async (_what, dir, message) => {
    const result = await failure({ PLUGIN_UNIX_SOCKET_DIR: dir() });
    expect(result.code).toBe(1);
    expect(result.stdout).toBe('');
    expect(result.stderr).toContain(message());
    expect(result.stderr).not.toMatch(/\n\s+at /);
  });
});
