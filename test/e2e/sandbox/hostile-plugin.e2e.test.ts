import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createSocket, type Socket } from 'node:dgram';
import { createServer, type Server } from 'node:net';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { OtherUser } from '../../support/attacker/other-user';
import type { McpAgent } from '../../support/clients/mcp-agent';
import { eventually } from '../../support/eventually';
import { writeHostileMcpServer, writeHostilePlugin, type HostileTool } from '../../support/packages/hostile-plugin';
import { exposed } from '../../support/packages/slow-plugin';
import { BackendWorld, type StartedSession } from '../../support/processes/backend-world';
import { linkedAgent } from '../../support/processes/linked-agent';
import { processesMentioning } from '../../support/processes/process-table';
import { sandboxSuiteMode, sandboxSuiteProblem } from '../../support/sandbox-suite';

jest.setTimeout(60_000);

const HOSTILE = 'redteam.hostile';
const HOSTILE_MCP = 'redteam.hostile_mcp';
const LINKER = 'redteam.linker';
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
  /** Where the SDK plugin listens (an MCP server speaks on its stdio). */
  listens?: { network: 'tcp' | 'unix'; address: string };
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

const uidOf = (account: string) => Number(execFileSync('id', ['-u', account], { encoding: 'utf8' }).trim());
const gidOf = (account: string) => Number(execFileSync('id', ['-g', account], { encoding: 'utf8' }).trim());

/** A `unix:` or `host:port` address as the socket opener's target. */
const openerTarget = (address: string): string => (address.startsWith('unix:') ? address : address.startsWith('/') ? `unix:${address}` : `tcp:${address}`);

/** The account a non-root backend runs as here, as an operator's dedicated account would. */
const BACKEND_ACCOUNT = 'daemon';

/**
 * Issue 27's red team (docs/plugin-protocol.md §4, sandbox): a hostile plugin, installed with no
 * permission, tries each thing a sandboxed plugin may not do. Each attempt is made with
 * `--plugin-sandbox off`, where it must work (so each probe is shown to see access), and with
 * `--plugin-sandbox require`, where it must fail. Both under a root backend (where a sandboxed
 * plugin also runs as a uid of its own, and bubblewrap drops root's capabilities) and under a
 * backend of an ordinary account (bubblewrap in a user namespace, the plugin keeping the
 * backend's uid, so only the namespaces stand in its way). What an ordinary account's plugin
 * cannot do even with `off` (mknod, chown, setuid, /etc/shadow) is said so in the test's name.
 */
describe.each([
  ['root', 'off', 'every attempt works, proving each probe sees access'],
  ['root', 'require', 'every attempt fails'],
  [BACKEND_ACCOUNT, 'off', 'every attempt open to its user works'],
  [BACKEND_ACCOUNT, 'require', 'every attempt fails'],
] as const)('a hostile plugin of a backend run as %s, under --plugin-sandbox %s (%s)', (user, mode, _expected) => {
  const sandboxed = mode === 'require';
  const root = user === 'root';
  const world = new BackendWorld(['--plugin-sandbox', mode], { prefix: `toolport-redteam-${user}-${mode}-` });
  /** Whether an attempt works: never sandboxed; with off, unless it needs root's capabilities and the backend has none. */
  const works = (needsRoot = false) => !sandboxed && (root || !needsRoot);
  /** A test name for an attempt that needs root: under an ordinary account it fails in both modes, which the name says. */
  const rootOnly = (what: string) => (root ? what : `${what}: refused even with off, a plugin of an ordinary account holds no capability`);
  const canary = `canary-${randomBytes(12).toString('hex')}`;
  const abstractName = `\0toolport-redteam-${randomBytes(6).toString('hex')}`;
  /** A POSIX shared memory object of the host's (what shm_open makes), readable by anyone. */
  const sharedMemory = `/dev/shm/toolport-redteam-${randomBytes(6).toString('hex')}`;
  let abstractServer: Server | undefined;
  /** A System V shared memory segment of the host's IPC namespace, readable by anyone. */
  let sysvSegment: number | undefined;
  let agent: McpAgent;
  let session: StartedSession;
  let hostile: Self;
  let hostileMcp: Self;
  let victim: Self;
  let backendHome: string;
  let outside: string;
  let hostilePackage: string;
  let hostileMcpPackage: string;
  let linkerWork: string;
  let linker: Self;

  /** One attempt by `plugin`: its outcome, the JSON text both kinds of hostile plugin answer. */
  const call = async (tool: HostileTool, args: Record<string, unknown> = {}, plugin = HOSTILE): Promise<Outcome> => {
    const result = await agent.call(exposed(plugin, tool), args);
    const text = (result.content as Array<{ type: string; text?: string }>)[0]?.text;
    if (result.isError || text === undefined) throw new Error(`the ${tool} tool of ${plugin} failed: ${JSON.stringify(result.content)}`);
    return JSON.parse(text) as Outcome;
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
    writeFileSync(sharedMemory, `${canary}\n`, { mode: 0o644 });
    sysvSegment = Number(/(\d+)\s*$/.exec(execFileSync('ipcmk', ['-M', '4096', '-p', '0644'], { encoding: 'utf8' }))![1]);
    // An abstract unix socket in the host's network namespace.
    abstractServer = createServer((socket) => socket.destroy());
    await new Promise<void>((resolve) => abstractServer!.listen({ path: abstractName }, resolve));

    if (!root) {
      // The account's own data dir, in a sandbox folder it may pass through.
      chmodSync(world.root, 0o711);
      mkdirSync(world.dataDir, { mode: 0o700 });
      chownSync(world.dataDir, uidOf(user), gidOf(user));
    }
    await world.start({ env: { HOME: backendHome, TOOLPORT_REDTEAM_CANARY: canary }, ...(root ? {} : { user }) });
    hostilePackage = writeHostilePlugin(join(world.root, 'pkg-hostile'), HOSTILE);
    await world.install(hostilePackage);
    await world.install(writeHostilePlugin(join(world.root, 'pkg-victim'), VICTIM));
    hostileMcpPackage = writeHostileMcpServer(join(world.root, 'pkg-hostile-mcp'), HOSTILE_MCP);
    await world.install(hostileMcpPackage);
    // A plugin granted a folder to write and, inside it, one to read.
    linkerWork = join(world.root, 'linker-work');
    mkdirSync(join(linkerWork, 'docs'), { recursive: true });
    chmodSync(linkerWork, 0o777);
    const reach = { read_paths: [join(linkerWork, 'docs')], write_paths: [linkerWork] };
    await world.install(writeHostilePlugin(join(world.root, 'pkg-linker'), LINKER, '1.0.0', reach), ['read_paths', 'write_paths']);
    session = await world.session('kanban-task', 'redteam-task');
    agent = await linkedAgent(world, session);
    hostile = (await call('self')) as unknown as Self;
    hostileMcp = (await call('self', {}, HOSTILE_MCP)) as unknown as Self;
    victim = (await call('self', {}, VICTIM)) as unknown as Self;
    linker = (await call('self', {}, LINKER)) as unknown as Self;
    // What the victim keeps in its data dir, readable by any uid that can get to it.
    writeFileSync(join(victim.data_dir, 'notes.txt'), `${canary}\n`, { mode: 0o644 });
  }, 90_000);

  afterAll(async () => {
    await new Promise((resolve) => (abstractServer ? abstractServer.close(resolve) : resolve(undefined)));
    rmSync(sharedMemory, { force: true });
    if (sysvSegment !== undefined) execFileSync('ipcrm', ['-m', String(sysvSegment)]);
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  describe.each([
    ['an SDK plugin', HOSTILE],
    ['an MCP server plugin (mcp-stdio)', HOSTILE_MCP],
  ] as const)('%s', (_kind, id) => {
    const attack = (tool: HostileTool, args: Record<string, unknown> = {}) => call(tool, args, id);
    let me: Self;
    let tree: string;
    beforeAll(() => {
      me = id === HOSTILE ? hostile : hostileMcp;
      tree = id === HOSTILE ? hostilePackage : hostileMcpPackage;
    });

    it('reports how it runs: mode and uid on the record', async () => {
      const record = (await world.api('GET', `/api/v1/plugins/${id}`)).body;
      expect(record).toMatchObject({ status: 'active', sandbox: { mode: sandboxed ? 'bwrap' : 'none', network: !sandboxed } });
      if (me.listens) expect(me.listens.network).toBe(sandboxed ? 'unix' : 'tcp');
    });

    describe("the backend's data dir", () => {
      for (const file of ['toolport.db', 'secret.key', 'admin.token']) {
        it(`reads ${file}`, async () => {
          const path = join(world.dataDir, file);
          expect(existsSync(path)).toBe(true);
          const read = await attack('read', { path });
          if (works()) expect(read).toMatchObject({ ok: true, text: readFileSync(path).subarray(0, 4096).toString('utf8') });
          else expectUnseen(read);
        });
      }

      it('lists the data dir and sees the store, the key and the token', async () => {
        const listed = await attack('list', { path: world.dataDir });
        if (works()) expect(listed.entries).toEqual(expect.arrayContaining(['toolport.db', 'secret.key', 'admin.token']));
        else for (const name of ['toolport.db', 'secret.key', 'admin.token', 'backend.json']) expect(listed.entries ?? []).not.toContain(name);
      });

      it('writes a file into the data dir, outside its own folders', async () => {
        const path = join(world.dataDir, 'planted-by-hostile');
        const wrote = await attack('write', { path });
        if (works()) expect(wrote.ok).toBe(true);
        else expectUnseen(wrote, ['EACCES', 'EROFS', 'ENOENT']);
        expect(existsSync(path)).toBe(!sandboxed);
      });
    });

    describe('another plugin', () => {
      it("reads the other plugin's data", async () => {
        const read = await attack('read', { path: join(victim.data_dir, 'notes.txt') });
        if (works()) expect(read).toMatchObject({ ok: true, text: `${canary}\n` });
        else expectUnseen(read);
      });

      it("reads the other plugin's installed package", async () => {
        const path = join(victim.cwd, 'manifest.yaml');
        const read = await attack('read', { path });
        if (works()) expect(read).toMatchObject({ ok: true, text: expect.stringContaining(`id: ${VICTIM}`) });
        else expectUnseen(read);
      });

      it('signals the other plugin and reads its environment (its Host API token)', async () => {
        const pid = hostPidOf(victim);
        const signal = await attack('signal', { pid });
        const environ = await attack('read', { path: `/proc/${pid}/environ`, max: 1 << 20 });
        if (works()) {
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
        const read = await attack('read', { path: `/proc/${world.backend.pid}/environ`, max: 1 << 20 });
        if (works()) expect(read).toMatchObject({ ok: true, text: expect.stringContaining(`TOOLPORT_REDTEAM_CANARY=${canary}`) });
        else expectUnseen(read);
      });

      it("reads the backend's /proc/<pid>/cmdline and lists its fds", async () => {
        const cmdline = await attack('read', { path: `/proc/${world.backend.pid}/cmdline` });
        const fds = await attack('list', { path: `/proc/${world.backend.pid}/fd` });
        if (works()) {
          expect(cmdline).toMatchObject({ ok: true, text: expect.stringContaining(world.dataDir) });
          expect(fds.ok).toBe(true);
        } else {
          expectUnseen(cmdline);
          expectUnseen(fds);
        }
      });

      it('sees the backend among the processes in /proc', async () => {
        const seen = await attack('processes');
        expect(seen.ok).toBe(true);
        if (works()) expect(seen.pids).toEqual(expect.arrayContaining([world.backend.pid, process.pid]));
        else expect(seen.pids).not.toEqual(expect.arrayContaining([world.backend.pid]));
      });

      it('signals the backend (kill -0 its pid)', async () => {
        const signal = await attack('signal', { pid: world.backend.pid });
        if (works()) expect(signal.ok).toBe(true);
        else expect(signal).toMatchObject({ ok: false, code: 'ESRCH' });
      });

      it("reads a file in the backend's HOME", async () => {
        const read = await attack('read', { path: join(backendHome, 'credentials') });
        if (works()) expect(read).toMatchObject({ ok: true, text: `${canary}\n` });
        else expectUnseen(read);
      });
    });

    describe('the network, without the network permission', () => {
      it("connects to the backend's HTTP API port on 127.0.0.1", async () => {
        const opened = await attack('connect', { host: '127.0.0.1', port: Number(new URL(world.backend.url).port) });
        if (works()) expect(opened.ok).toBe(true);
        else expect(opened).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
      });

      it("connects to an agentctl's MCP port on 127.0.0.1", async () => {
        const opened = await attack('connect', { host: '127.0.0.1', port: Number(new URL(session.mcp!.url).port) });
        if (works()) expect(opened.ok).toBe(true);
        else expect(opened).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
      });

      it("connects to the other plugin's listener", async () => {
        const { network, address } = victim.listens!;
        const opened = await attack('connect', network === 'unix' ? { path: address } : { host: '127.0.0.1', port: Number(address.split(':')[1]) });
        if (works()) expect(opened.ok).toBe(true);
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
          await attack('udp', { port, payload: canary });
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
        const opened = await attack('connect', { path: abstractName });
        if (works()) expect(opened.ok).toBe(true);
        else expect(opened).toMatchObject({ ok: false, code: 'ECONNREFUSED' });
      });
    });

    describe('files outside its own', () => {
      it('writes into its own installed version folder', async () => {
        const path = join(me.cwd, 'planted');
        const wrote = await attack('write', { path });
        if (works()) expect(wrote.ok).toBe(true);
        else expect(wrote).toMatchObject({ ok: false, code: 'EROFS' });
        expect(existsSync(path)).toBe(!sandboxed);
      });

      it('writes into a folder anyone may write, outside the data dir and its TMPDIR', async () => {
        const path = join(outside, 'planted');
        const wrote = await attack('write', { path });
        if (works()) expect(wrote.ok).toBe(true);
        else expectUnseen(wrote);
        expect(existsSync(path)).toBe(!sandboxed);
      });

      it('reads the tree it was installed from', async () => {
        const read = await attack('read', { path: join(tree, 'manifest.yaml') });
        if (works()) expect(read).toMatchObject({ ok: true, text: expect.stringContaining(`id: ${id}`) });
        else expectUnseen(read);
      });

      it("sees the host's devices in /dev", async () => {
        // What bubblewrap's minimal /dev holds; anything else there is the host's.
        const minimal = ['console', 'core', 'fd', 'full', 'null', 'ptmx', 'pts', 'random', 'shm', 'stderr', 'stdin', 'stdout', 'tty', 'urandom', 'zero'];
        const hostOnly = readdirSync('/dev').filter((name) => !minimal.includes(name));
        expect(hostOnly.length).toBeGreaterThan(0);
        const listed = await attack('list', { path: '/dev' });
        expect(listed.ok).toBe(true);
        if (works()) expect(listed.entries).toEqual(expect.arrayContaining(hostOnly));
        else expect(listed.entries!.filter((name) => !minimal.includes(name))).toEqual([]);
      });

      it("reads a POSIX shared memory object of the host's (/dev/shm)", async () => {
        const read = await attack('read', { path: sharedMemory });
        if (works()) expect(read).toMatchObject({ ok: true, text: `${canary}\n` });
        else expectUnseen(read);
      });

      it("sees a System V shared memory segment of the host's IPC namespace", async () => {
        const listed = await attack('read', { path: '/proc/sysvipc/shm', max: 1 << 20 });
        expect(listed.ok).toBe(true);
        const ids = (listed.text ?? '')
          .split('\n')
          .slice(1)
          .map((line) => Number(line.trim().split(/\s+/)[1]));
        if (works()) expect(ids).toContain(sysvSegment);
        else expect(ids).not.toContain(sysvSegment);
      });

      it(rootOnly('reads /etc/shadow (root only)'), async () => {
        const read = await attack('read', { path: '/etc/shadow' });
        if (works(true)) expect(read).toMatchObject({ ok: true, text: expect.stringContaining('root:') });
        // /etc is there, read-only: its uid (its own under a root backend) is what keeps the file closed.
        else expect(read).toMatchObject({ ok: false, code: 'EACCES' });
      });

      it('still writes its own data dir and TMPDIR (the control: the write probe works in the sandbox)', async () => {
        for (const folder of [me.data_dir, me.tmpdir]) {
          expect(await attack('write', { path: join(folder, 'own') })).toMatchObject({ ok: true });
        }
        expect(existsSync(join(me.data_dir, 'own'))).toBe(true);
        expect(me.home).toBe(me.data_dir);
      });
    });

    describe('capabilities', () => {
      it('keeps a capability bounding set without no_new_privs, and under root effective capabilities (its /proc/self/status)', async () => {
        const status = (await attack('read', { path: '/proc/self/status' })).text ?? '';
        const field = (name: string) => new RegExp(`^${name}:\\s*(\\S+)$`, 'm').exec(status)?.[1];
        const held = { effective: field('CapEff'), bounding: field('CapBnd'), noNewPrivs: field('NoNewPrivs') };
        const none = '0000000000000000';
        if (sandboxed) expect(held).toEqual({ effective: none, bounding: none, noNewPrivs: '1' });
        else expect(held).toEqual({ effective: root ? expect.not.stringMatching(/^0+$/) : none, bounding: expect.not.stringMatching(/^0+$/), noNewPrivs: '0' });
      });

      it(rootOnly('makes a device node (mknod) in its own data dir'), async () => {
        const made = await attack('mknod', { path: join(me.data_dir, 'null-device') });
        if (works(true)) expect(made.ok).toBe(true);
        else expect(made).toMatchObject({ ok: false, message: expect.stringContaining('Operation not permitted') });
      });

      // uid 2 (bin): neither root, the backend's account nor a plugin's.
      it(rootOnly('gives a file of its own to another uid (chown)'), async () => {
        const given = await attack('chown', { path: join(me.data_dir, 'given-away'), uid: 2 });
        if (works(true)) expect(given.ok).toBe(true);
        else expect(given).toMatchObject({ ok: false, code: expect.stringMatching(/^(EPERM|EINVAL)$/) });
      });

      it(rootOnly('becomes another uid (setuid)'), async () => {
        const became = await attack('setuid', { uid: 2 });
        if (works(true)) expect(became).toMatchObject({ ok: true, stdout: '2' });
        else expect(became).toMatchObject({ ok: false, message: expect.stringMatching(/EPERM|EINVAL/) });
      });
    });

    it(
      sandboxed && root
        ? 'runs as a uid of its own: neither root nor the other plugin’s, the one its record names'
        : sandboxed
          ? 'runs as the backend’s user (a uid of its own is a root backend’s rule: nothing to separate here)'
          : 'runs as the backend’s user (with off there is no uid of its own to prove: off runs plugins as before)',
      async () => {
        const records = (await world.api<Array<{ id: string; uid?: number | null }>>('GET', '/api/v1/plugins')).body;
        const recordUid = (id: string) => records.find((r) => r.id === id)?.uid;
        if (!sandboxed || !root) {
          const backendUid = uidOf(user);
          expect([me.uid, victim.uid]).toEqual([backendUid, backendUid]);
        } else {
          expect(me.uid).not.toBe(0);
          expect(me.uid).not.toBe(victim.uid);
          expect([recordUid(id), recordUid(VICTIM)]).toEqual([me.uid, victim.uid]);
          expect(readFileSync('/etc/passwd', 'utf8')).not.toMatch(new RegExp(`^[^:]*:[^:]*:${me.uid}:`, 'm'));
        }
      },
    );

    it("gets none of the backend's environment (in both modes: the allow-list is not the sandbox's)", () => {
      expect(me.env).not.toContain('TOOLPORT_REDTEAM_CANARY');
      expect(me.env).not.toContain('TOOLPORT_ADMIN_TOKEN');
      expect(me.home).toBe(me.data_dir);
    });
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
        const { uid, tried } = await open(hostile.listens!.address);
        if (works()) expect(tried).toMatchObject({ ok: true, uid });
        else {
          expect(hostile.listens!.address.startsWith(`${hostile.tmpdir}/`)).toBe(true);
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

  it("re-points its granted read path at the backend's HOME through a link in its granted write path: its restart is refused, naming the path (in both modes: with off the check still runs, though such a plugin reads that HOME directly)", async () => {
    const docs = join(linkerWork, 'docs');
    expect(await call('read', { path: join(docs, '..', 'docs') }, LINKER)).toMatchObject({ code: 'EISDIR' });
    expect(await call('link', { path: docs, target: backendHome }, LINKER)).toMatchObject({ ok: true });
    expect(await call('exit', {}, LINKER)).toMatchObject({ ok: true });
    const refused = await eventually(
      async () => {
        const record = (await world.api<{ status: string; last_error: string | null }>('GET', `/api/v1/plugins/${LINKER}`)).body;
        return record.last_error?.includes('permissions.read_paths[0]') ? record : undefined;
      },
      20_000,
      'the restart to be refused',
    );
    expect(refused.last_error).toContain(`permissions.read_paths[0]: ${backendHome} is reached through a symbolic link in ${linkerWork}`);
    // Refused before anything was spawned: no process of the plugin runs.
    expect(processesMentioning(linker.cwd)).toEqual([]);
  });

  // Last: it kills the backend.
  it(
    sandboxed
      ? 'dies with the backend: within 2 s of its SIGKILL no process of either sandbox (SDK plugin, MCP server) is left, a setsid child included'
      : 'leaves the setsid children of the SDK plugin and the MCP server running after the backend is SIGKILLed (with off nothing kills them)',
    async () => {
      const markers = [HOSTILE, HOSTILE_MCP].map((id) => join(world.root, `${id}-survivor`));
      for (const [index, id] of [HOSTILE, HOSTILE_MCP].entries()) expect((await call('survivor', { marker: markers[index] }, id)).ok).toBe(true);
      const survivors = () => markers.map((marker) => processesMentioning(marker).map((p) => p.state));
      await eventually(() => survivors().every((states) => states.length === 1) || undefined, 5000, 'both survivors to run');
      await world.backend.stop('SIGKILL');
      if (sandboxed) {
        const left = () => [...markers, hostile.cwd, hostileMcp.cwd].flatMap((marker) => processesMentioning(marker));
        await eventually(() => left().length === 0 || undefined, 2000, 'every process of both sandboxes to exit after the backend');
      } else {
        // The same 2 s the sandboxed run is given: the setsid children outlive them.
        await new Promise((resolve) => setTimeout(resolve, 2000));
        expect(survivors()).toEqual([[expect.stringMatching(/^[RS]$/)], [expect.stringMatching(/^[RS]$/)]]);
      }
    },
  );
});
