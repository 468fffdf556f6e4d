import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { OtherUser } from '../../support/attacker/other-user';
import type { McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writeHostilePlugin, type HostileTool } from '../../support/packages/hostile-plugin';
import { exposed } from '../../support/packages/slow-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { linkedAgent } from '../../support/processes/linked-agent';
import { processesMentioning } from '../../support/processes/process-table';
import { sandboxSuiteMode, sandboxSuiteProblem } from '../../support/sandbox-suite';

jest.setTimeout(60_000);

const HOSTILE = 'redteam.hostile';
const VICTIM = 'redteam.victim';
const MODE = sandboxSuiteMode();
const PROBLEM = sandboxSuiteProblem(MODE);

type Outcome = Record<string, unknown> & { ok: boolean; code?: string; text?: string; entries?: string[]; pids?: number[] };
interface Self {
  uid: number;
  pid: number;
  cwd: string;
  home: string;
  tmpdir: string;
  data_dir: string;
  host_addr: string;
  env: string[];
  listens: { network: 'tcp' | 'unix'; address: string };
}

/**
 * The host pid of a plugin's node process (its command line names its installed main.js), seen
 * from the host: a sandboxed plugin's own `pid` is one of its namespace.
 */
function hostPidOf(plugin: Self): number {
  const nodes = processesMentioning(join(plugin.cwd, 'main.js')).filter((p) => /^(\S*\/)?node /.test(p.cmdline));
  if (nodes.length !== 1) throw new Error(`expected one node process of ${plugin.cwd}, found ${JSON.stringify(nodes)}`);
  return nodes[0]!.pid;
}

/** A `unix:` or `host:port` address as the socket opener's target. */
const openerTarget = (address: string): string => (address.startsWith('unix:') ? address : address.startsWith('/') ? `unix:${address}` : `tcp:${address}`);

/**
 * Issue 27's red team (docs/plugin-protocol.md §4, sandbox): a hostile plugin, installed with no
 * permission, tries each thing a sandboxed plugin may not do. Run twice: with
 * `--plugin-sandbox off` every attempt must work (so each probe is shown to see access), and
 * with `--plugin-sandbox require` every attempt must fail. The backend runs as root, as CI's
 * does, so the sandboxed plugin also runs as a uid of its own.
 */
describe.each([
  ['off', 'every attempt works, proving each probe sees access'],
  ['require', 'every attempt fails'],
] as const)('a hostile plugin under --plugin-sandbox %s (%s)', (mode, _expected) => {
  const sandboxed = mode === 'require';
  const world = new BackendWorld(['--plugin-sandbox', mode], { prefix: `toolport-redteam-${mode}-` });
  const canary = `canary-${randomBytes(12).toString('hex')}`;
  const abstractName = `\0toolport-redteam-${randomBytes(6).toString('hex')}`;
  let abstractServer: Server | undefined;
  let agent: McpAgent;
  let session: StartedSession;
  let hostile: Self;
  let victim: Self;
  let backendHome: string;
  let outside: string;
  let hostilePackage: string;

  const call = async (tool: HostileTool, args: Record<string, unknown> = {}, plugin = HOSTILE): Promise<Outcome> => {
    const result = await agent.call(exposed(plugin, tool), args);
    if (result.isError) throw new Error(`the ${tool} tool failed: ${JSON.stringify(result.content)}`);
    return result.structuredContent as Outcome;
  };

  /** Sandboxed, what lies outside its mounts does not exist for the plugin: ENOENT, not a refusal it could see around. */
  const expectUnseen = (outcome: Outcome, codes = ['ENOENT']) => {
    expect({ ok: outcome.ok, code: outcome.code }).toEqual({ ok: false, code: expect.stringMatching(new RegExp(`^(${codes.join('|')})$`)) });
  };

  beforeAll(async () => {
    if (sandboxed && PROBLEM) throw new Error(PROBLEM);
    if (MODE === 'require' && PROBLEM) throw new Error(PROBLEM);
    if (process.getuid?.() !== 0)
      throw new Error('the sandbox red-team suite runs as root, as CI does: it attacks a root backend and runs attackers as nobody');
    // The backend's HOME, with a private file in it, and a folder anyone may write, both outside the data dir.
    backendHome = join(world.root, 'backend-home');
    mkdirSync(backendHome, { mode: 0o755 });
    writeFileSync(join(backendHome, 'credentials'), `${canary}\n`, { mode: 0o644 });
    outside = join(world.root, 'outside');
    mkdirSync(outside);
    chmodSync(outside, 0o777);
    // An abstract unix socket in the host's network namespace.
    abstractServer = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => abstractServer!.listen({ path: abstractName }, resolve));

    await world.start({ env: { HOME: backendHome, TOOLPORT_REDTEAM_CANARY: canary } });
    hostilePackage = writeHostilePlugin(join(world.root, 'pkg-hostile'), HOSTILE);
    await world.install(hostilePackage);
    await world.install(writeHostilePlugin(join(world.root, 'pkg-victim'), VICTIM));
    session = await world.session('kanban-task', 'redteam-task');
    agent = await linkedAgent(world, session);
    hostile = (await call('self')) as unknown as Self;
    victim = (await call('self', {}, VICTIM)) as unknown as Self;
    // What the victim keeps in its data dir, readable by any uid that can get to it.
    writeFileSync(join(victim.data_dir, 'notes.txt'), `${canary}\n`, { mode: 0o644 });
  }, 90_000);

  afterAll(async () => {
    await new Promise((resolve) => (abstractServer ? abstractServer.close(resolve) : resolve(undefined)));
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('reports how it runs: mode and uid on the record', async () => {
    const record = (await world.api('GET', `/api/v1/plugins/${HOSTILE}`)).body;
    expect(record).toMatchObject({ status: 'active', sandbox: { mode: sandboxed ? 'bwrap' : 'none', network: !sandboxed } });
    expect(hostile.listens.network).toBe(sandboxed ? 'unix' : 'tcp');
  });

  describe("the backend's data dir", () => {
    for (const file of ['toolport.db', 'secret.key', 'admin.token']) {
      it(`reads ${file}`, async () => {
        const path = join(world.dataDir, file);
        expect(existsSync(path)).toBe(true);
        const read = await call('read', { path });
        if (!sandboxed) expect(read).toMatchObject({ ok: true, text: readFileSync(path).subarray(0, 4096).toString('utf8') });
        else expectUnseen(read);
      });
    }

    it('lists the data dir and sees the store, the key and the token', async () => {
      const listed = await call('list', { path: world.dataDir });
      if (!sandboxed) expect(listed.entries).toEqual(expect.arrayContaining(['toolport.db', 'secret.key', 'admin.token']));
      else for (const name of ['toolport.db', 'secret.key', 'admin.token', 'backend.json']) expect(listed.entries ?? []).not.toContain(name);
    });

    it('writes a file into the data dir, outside its own folders', async () => {
      const path = join(world.dataDir, 'planted-by-hostile');
      const wrote = await call('write', { path });
      if (!sandboxed) expect(wrote.ok).toBe(true);
      else expectUnseen(wrote, ['EACCES', 'EROFS', 'ENOENT']);
      expect(existsSync(path)).toBe(!sandboxed);
    });
  });

  describe('another plugin', () => {
    it("reads the other plugin's data", async () => {
      const read = await call('read', { path: join(victim.data_dir, 'notes.txt') });
      if (!sandboxed) expect(read).toMatchObject({ ok: true, text: `${canary}\n` });
      else expectUnseen(read);
    });

    it("reads the other plugin's installed package", async () => {
      const path = join(victim.cwd, 'manifest.yaml');
      const read = await call('read', { path });
      if (!sandboxed) expect(read).toMatchObject({ ok: true, text: expect.stringContaining(`id: ${VICTIM}`) });
      else expectUnseen(read);
    });

    it('signals the other plugin and reads its environment (its Host API token)', async () => {
      const pid = hostPidOf(victim);
      const signal = await call('signal', { pid });
      const environ = await call('read', { path: `/proc/${pid}/environ`, max: 1 << 20 });
      if (!sandboxed) {
        expect(signal.ok).toBe(true);
        expect(environ).toMatchObject({ ok: true, text: expect.stringContaining('TOOLPORT_HOST_TOKEN=') });
      } else {
        expect(signal).toMatchObject({ ok: false, code: 'ESRCH' });
        expectUnseen(environ);
      }
    });
  });

  describe('the backend process', () => {
    it("reads the backend's /proc/<pid>/environ", async () => {
      const read = await call('read', { path: `/proc/${world.backend.pid}/environ`, max: 1 << 20 });
      if (!sandboxed) expect(read).toMatchObject({ ok: true, text: expect.stringContaining(`TOOLPORT_REDTEAM_CANARY=${canary}`) });
      else expectUnseen(read);
    });

    it("reads the backend's /proc/<pid>/cmdline and lists its fds", async () => {
      const cmdline = await call('read', { path: `/proc/${world.backend.pid}/cmdline` });
      const fds = await call('list', { path: `/proc/${world.backend.pid}/fd` });
      if (!sandboxed) {
        expect(cmdline).toMatchObject({ ok: true, text: expect.stringContaining(world.dataDir) });
        expect(fds.ok).toBe(true);
      } else {
        expectUnseen(cmdline);
        expectUnseen(fds);
      }
    });

    it('sees the backend among the processes in /proc', async () => {
      const seen = await call('processes');
      expect(seen.ok).toBe(true);
      if (!sandboxed) expect(seen.pids).toEqual(expect.arrayContaining([world.backend.pid, process.pid]));
      else expect(seen.pids).not.toEqual(expect.arrayContaining([world.backend.pid]));
    });

    it('signals the backend (kill -0 its pid)', async () => {
      const signal = await call('signal', { pid: world.backend.pid });
      if (!sandboxed) expect(signal.ok).toBe(true);
      else expect(signal).toMatchObject({ ok: false, code: 'ESRCH' });
    });

    it("reads a file in the backend's HOME", async () => {
      const read = await call('read', { path: join(backendHome, 'credentials') });
      if (!sandboxed) expect(read).toMatchObject({ ok: true, text: `${canary}\n` });
      else expectUnseen(read);
    });
  });

  describe('the network, without the network permission', () => {
    it("connects to the backend's HTTP API port on 127.0.0.1", async () => {
      const opened = await call('connect', { host: '127.0.0.1', port: Number(new URL(world.backend.url).port) });
      if (!sandboxed) expect(opened.ok).toBe(true);
      else expect(opened).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    });

    it("connects to an agentctl's MCP port on 127.0.0.1", async () => {
      const opened = await call('connect', { host: '127.0.0.1', port: Number(new URL(session.mcp!.url).port) });
      if (!sandboxed) expect(opened.ok).toBe(true);
      else expect(opened).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    });

    it("connects to the other plugin's listener", async () => {
      const { network, address } = victim.listens;
      const opened = await call('connect', network === 'unix' ? { path: address } : { host: '127.0.0.1', port: Number(address.split(':')[1]) });
      if (!sandboxed) expect(opened.ok).toBe(true);
      // Its socket is in the victim's TMPDIR, which is not in this sandbox.
      else expectUnseen(opened);
    });

    it('sends a UDP datagram to a port on 127.0.0.1', async () => {
      const receiver: Socket = createSocket('udp4');
      const received: string[] = [];
      receiver.on('message', (message) => received.push(message.toString('utf8')));
      await new Promise<void>((resolve) => receiver.bind(0, '127.0.0.1', resolve));
      try {
        const port = receiver.address().port;
        await call('udp', { port, payload: canary });
        // A datagram of the host's own after it: once that arrived, the plugin's would have too.
        const sender = createSocket('udp4');
        await new Promise((resolve) => sender.send('after', port, '127.0.0.1', resolve));
        sender.close();
        await eventually(() => received.includes('after') || undefined, 5000, 'the host datagram to arrive');
        expect(received).toEqual(sandboxed ? ['after'] : [canary, 'after']);
      } finally {
        receiver.close();
      }
    });

    it("connects to an abstract unix socket of the host's network namespace", async () => {
      const opened = await call('connect', { path: abstractName });
      if (!sandboxed) expect(opened.ok).toBe(true);
      else expect(opened).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
    });
  });

  describe('files outside its own', () => {
    it('writes into its own installed version folder', async () => {
      const path = join(hostile.cwd, 'planted');
      const wrote = await call('write', { path });
      if (!sandboxed) expect(wrote.ok).toBe(true);
      else expect(wrote).toMatchObject({ ok: false, code: 'EROFS' });
      expect(existsSync(path)).toBe(!sandboxed);
    });

    it('writes into a folder anyone may write, outside the data dir and its TMPDIR', async () => {
      const path = join(outside, 'planted');
      const wrote = await call('write', { path });
      if (!sandboxed) expect(wrote.ok).toBe(true);
      else expectUnseen(wrote);
      expect(existsSync(path)).toBe(!sandboxed);
    });

    it('reads the tree it was installed from', async () => {
      const read = await call('read', { path: join(hostilePackage, 'manifest.yaml') });
      if (!sandboxed) expect(read).toMatchObject({ ok: true, text: expect.stringContaining(`id: ${HOSTILE}`) });
      else expectUnseen(read);
    });

    it("sees the host's devices in /dev", async () => {
      // What bubblewrap's minimal /dev holds; anything else there is the host's.
      const minimal = ['console', 'core', 'fd', 'full', 'null', 'ptmx', 'pts', 'random', 'shm', 'stderr', 'stdin', 'stdout', 'tty', 'urandom', 'zero'];
      const hostOnly = readdirSync('/dev').filter((name) => !minimal.includes(name));
      expect(hostOnly.length).toBeGreaterThan(0);
      const listed = await call('list', { path: '/dev' });
      expect(listed.ok).toBe(true);
      if (!sandboxed) expect(listed.entries).toEqual(expect.arrayContaining(hostOnly));
      else expect(listed.entries!.filter((name) => !minimal.includes(name))).toEqual([]);
    });

    it('reads /etc/shadow (root only)', async () => {
      const read = await call('read', { path: '/etc/shadow' });
      if (!sandboxed) expect(read).toMatchObject({ ok: true, text: expect.stringContaining('root:') });
      // /etc is there, read-only: its own uid is what keeps the file closed.
      else expect(read).toMatchObject({ ok: false, code: 'EACCES' });
    });

    it('still writes its own data dir and TMPDIR (the control: the write probe works in the sandbox)', async () => {
      for (const folder of [hostile.data_dir, hostile.tmpdir]) {
        expect(await call('write', { path: join(folder, 'own') })).toMatchObject({ ok: true });
      }
      expect(existsSync(join(hostile.data_dir, 'own'))).toBe(true);
      expect(hostile.home).toBe(hostile.data_dir);
    });
  });

  describe('capabilities', () => {
    it('holds capabilities, without no_new_privs (its /proc/self/status)', async () => {
      const status = (await call('read', { path: '/proc/self/status' })).text ?? '';
      const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)$`, 'm').exec(status)?.[1];
      const held = { effective: field('CapEff'), bounding: field('CapBnd'), noNewPrivs: field('NoNewPrivs') };
      if (!sandboxed) expect(held).toMatchObject({ effective: expect.not.stringMatching(/^0+$/), noNewPrivs: '0' });
      else expect(held).toEqual({ effective: '0000000000000000', bounding: '0000000000000000', noNewPrivs: '1' });
    });

    it('makes a device node (mknod) in its own data dir', async () => {
      const made = await call('mknod', { path: join(hostile.data_dir, 'null-device') });
      if (!sandboxed) expect(made.ok).toBe(true);
      else expect(made).toMatchObject({ ok: false, message: expect.stringContaining('Operation not permitted') });
    });

    it('gives a file of its own to another uid (chown)', async () => {
      const given = await call('chown', { path: join(hostile.data_dir, 'given-away'), uid: 1 });
      if (!sandboxed) expect(given.ok).toBe(true);
      else expect(given).toMatchObject({ ok: false, code: 'EPERM' });
    });

    it('becomes another uid (setuid)', async () => {
      const became = await call('setuid', { uid: 1 });
      if (!sandboxed) expect(became).toMatchObject({ ok: true, stdout: '1' });
      else expect(became).toMatchObject({ ok: false, message: expect.stringContaining('EPERM') });
    });
  });

  it(
    sandboxed
      ? 'runs as a uid of its own: neither root nor the other plugin’s, the one its record names'
      : 'runs as the backend’s user (with off there is no uid of its own to prove: off runs plugins as before)',
    async () => {
      const records = (await world.api<Array<{ id: string; uid?: number | null }>>('GET', '/api/v1/plugins')).body;
      const uidOf = (id: string) => records.find((r) => r.id === id)?.uid;
      if (!sandboxed) {
        expect([hostile.uid, victim.uid]).toEqual([0, 0]);
      } else {
        expect(hostile.uid).not.toBe(0);
        expect(hostile.uid).not.toBe(victim.uid);
        expect([uidOf(HOSTILE), uidOf(VICTIM)]).toEqual([hostile.uid, victim.uid]);
        expect(readFileSync('/etc/passwd', 'utf8')).not.toMatch(new RegExp(`^[^:]*:[^:]*:${hostile.uid}:`, 'm'));
      }
    },
  );

  it("gets none of the backend's environment (in both modes: the allow-list is not the sandbox's)", () => {
    expect(hostile.env).not.toContain('TOOLPORT_REDTEAM_CANARY');
    expect(hostile.env).not.toContain('TOOLPORT_ADMIN_TOKEN');
    expect(hostile.home).toBe(hostile.data_dir);
  });

  describe('another local user (nobody)', () => {
    const open = async (address: string) => {
      const attacker = new OtherUser(world.root);
      const run = await attacker.run(attacker.script('socket-opener'), [openerTarget(address)]);
      expect(run.code).toBe(0);
      return { uid: attacker.uid, tried: JSON.parse(run.stdout) as { target: string; ok: boolean; code?: string; uid: number } };
    };

    it(
      sandboxed
        ? "cannot even open the plugin's unix socket, in its private TMPDIR"
        : "opens a connection to the plugin's TCP port (what stops it there is mutual TLS, not the sandbox)",
      async () => {
        const { uid, tried } = await open(hostile.listens.address);
        if (!sandboxed) expect(tried).toMatchObject({ ok: true, uid });
        else {
          expect(hostile.listens.address.startsWith(`${hostile.tmpdir}/`)).toBe(true);
          expect(tried).toMatchObject({ ok: false, code: 'EACCES', uid });
        }
      },
    );

    it("cannot open the plugin's Host API socket (in both modes: off keeps it in the 0700 data dir, the sandbox in the private TMPDIR)", async () => {
      const { uid, tried } = await open(hostile.host_addr);
      expect(tried).toMatchObject({ ok: false, code: 'EACCES', uid });
      if (sandboxed) expect(hostile.host_addr).toMatch(new RegExp(`^unix:${hostile.tmpdir}/`));
    });
  });

  // Last: it kills the backend.
  it(
    sandboxed
      ? 'dies with the backend: within 2 s of its SIGKILL no process of the sandbox is left, a setsid child included'
      : 'leaves a setsid child running after the backend is SIGKILLed (with off nothing kills it)',
    async () => {
      const marker = join(world.root, `survivor-${mode}`);
      const started = await call('survivor', { marker });
      expect(started.ok).toBe(true);
      await eventually(() => processesMentioning(marker).length === 1 || undefined, 5000, 'the survivor to run');
      await world.backend.stop('SIGKILL');
      if (sandboxed) {
        await eventually(
          () => (processesMentioning(marker).length === 0 && processesMentioning(hostile.cwd).length === 0) || undefined,
          2000,
          'every process of the sandbox to exit after the backend',
        );
      } else {
        // The same 2 s the sandboxed run is given: the setsid child outlives them.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        expect(processesMentioning(marker).map((p) => p.state)).toEqual([expect.stringMatching(/^[RS]$/)]);
      }
    },
  );
});
