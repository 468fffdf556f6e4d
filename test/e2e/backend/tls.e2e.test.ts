import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { writeProbePlugin } from '../../support/packages/probe-plugin';
import { BackendWorld } from '../../support/processes/backend-world';
import { processesMentioning } from '../../support/processes/process-table';
import { runToolport } from '../../support/processes/run-toolport';
import { makePrivateCa, type PrivateCa } from '../../support/tls/private-ca';

jest.setTimeout(60_000);

/** docs/operations.md rev 2: a backend on https/wss with a private CA, and every client of it. */
describe('backend: TLS with a private CA', () => {
  let world: BackendWorld;
  let ca: PrivateCa;
  let env: NodeJS.ProcessEnv;

  beforeAll(async () => {
    world = new BackendWorld();
    mkdirSync(join(world.root, 'tls'), { recursive: true });
    ca = makePrivateCa(join(world.root, 'tls'));
    await world.start({ args: ['--tls-cert', ca.chainFile, '--tls-key', ca.keyFile] });
    env = { TOOLPORT_URL: world.backend.url, TOOLPORT_ADMIN_TOKEN: world.backend.token };
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('writes an https URL to backend.json', () => {
    expect(world.backend.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
  });

  it('the CLI trusts it with --ca or TOOLPORT_CA, and says in one line why not without', async () => {
    const refused = await runToolport(['plugin', 'list'], { env });
    expect(refused.code).toBe(3);
    expect(refused.stderr.trim().split('\n')).toHaveLength(1);
    expect(refused.stderr).toMatch(/cannot be trusted: its certificate is not trusted .*--ca/);

    const installed = await runToolport(['plugin', 'install', writeProbePlugin(join(world.root, 'pkg'), 'e2e.tls', ['add_tag']), '--ca', ca.caFile], { env });
    expect(installed.stderr).toBe('');
    expect(installed.code).toBe(0);
    const listed = await runToolport(['plugin', 'list', '--json'], { env: { ...env, TOOLPORT_CA: ca.caFile } });
    expect(listed.code).toBe(0);
    expect(JSON.parse(listed.stdout).map((p: { id: string }) => p.id)).toEqual(['e2e.tls']);
  });

  it('a launched agentctl trusts what its backend serves, with no token on its command line', async () => {
    const started = await runToolport(
      ['session', 'start', '--task', 't-launched', '--workspace', 'w', '--surface', 'kanban-task', '--json', '--ca', ca.caFile],
      { env },
    );
    expect(started.code).toBe(0);
    const session = JSON.parse(started.stdout) as { mcp: { url: string; token: string } };
    const running = processesMentioning(world.dataDir).filter((p) => p.cmdline.includes(' agentctl '));
    expect(running).toHaveLength(1);
    expect(running[0]!.cmdline).not.toContain(session.mcp.token);
    expect(running[0]!.cmdline).not.toContain(world.backend.token);
    const agent = await world.connect(session.mcp.url, session.mcp.token);
    const result = await agent.call('kandev_e2e_tls_add_tag', { tag: 'over-tls' });
    expect(result.isError).toBeFalsy();
    expect(resultText(result)).toContain('over-tls');
  });

  it('a hand-started agentctl trusts it with --ca, and without exits 3 saying why in one line', async () => {
    const started = await runToolport(
      ['session', 'start', '--task', 't-hand', '--workspace', 'w', '--surface', 'kanban-task', '--no-launch', '--json', '--ca', ca.caFile],
      { env },
    );
    const session = JSON.parse(started.stdout) as { agentctl: { backend_url: string; session_token: string } };
    const tokens = { session: session.agentctl.session_token, mcp: 'hand-mcp', control: '' };

    const untrusting = await runToolport(['agentctl', '--backend-url', session.agentctl.backend_url, '--no-control-api'], {
      env: { TOOLPORT_SESSION_TOKEN: tokens.session, TOOLPORT_MCP_TOKEN: tokens.mcp },
      timeoutMs: 20_000,
    });
    expect(untrusting.code).toBe(3);
    const errors = untrusting.stderr.split('\n').filter((line) => line.includes('"level":50'));
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/cannot be trusted/);

    const agentctl = await world.startAgentctl({ backendUrl: session.agentctl.backend_url, args: ['--ca', ca.caFile, '--no-control-api'], tokens });
    const agent = await world.connect(agentctl.mcpUrl, tokens.mcp);
    const result = await agent.call('kandev_e2e_tls_add_tag', { tag: 'hand-started' });
    expect(result.isError).toBeFalsy();
  });

  it('refuses to serve with a certificate file it cannot read, or a key that is not the certificate’s, in one line, exit 2', async () => {
    const other = new BackendWorld();
    try {
      for (const args of [
        ['--tls-cert', join(world.root, 'tls', 'missing.pem'), '--tls-key', ca.keyFile],
        ['--tls-cert', ca.chainFile, '--tls-key', ca.strangerKeyFile],
        ['--tls-cert', ca.chainFile],
      ]) {
        const run = await runToolport(['serve', '--data-dir', other.dataDir, '--port', '0', ...args]);
        expect({ args, code: run.code }).toEqual({ args, code: 2 });
        expect(run.stderr.trim().split('\n')).toHaveLength(1);
        expect(run.stderr).toMatch(/--tls-(cert|key)/);
      }
    } finally {
      expect(await other.teardown()).toEqual([]);
    }
  });
});
