import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, lstatSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OtherUser } from '../../support/attacker/other-user';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(60_000);

const modeOf = (path: string): number => statSync(path).mode & 0o7777;

/** Runs a command as the other user (`nobody`), as that user would at a shell. */
function asNobody(command: string, ...args: string[]): void {
  execFileSync('setpriv', ['--reuid=nobody', '--regid=nogroup', '--clear-groups', command, ...args]);
}

/**
 * Issue 25's data dir trusted by path (docs/operations.md §4), tried by another local user
 * (`nobody`) with a real `toolport serve`: a symbolic link planted where the data dir will be,
 * and a data dir in a folder that user may write.
 */
describe('a data dir path another local user can change', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-datadir-path-' });

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  const serve = (dataDir: string) => runToolport(['serve', '--data-dir', dataDir, '--port', '0'], { timeoutMs: 10_000 });

  it("exits 1 naming another user's link planted as the data dir, and neither chmods nor writes what it points at", async () => {
    const attacker = new OtherUser(world.root);
    // Files of the backend's user the attacker would like made its store's home, or loosened.
    const victim = join(world.root, 'victim-files');
    mkdirSync(victim, { mode: 0o755 });
    chmodSync(victim, 0o755);
    writeFileSync(join(victim, 'notes'), 'mine', { mode: 0o644 });
    // A shared drop folder (as /tmp: everyone writes, sticky), where the operator's data dir is to be.
    const shared = join(world.root, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    const planted = join(shared, 'toolport-data');
    asNobody('ln', '-s', victim, planted);
    expect(lstatSync(planted).uid).toBe(attacker.uid);

    const run = await serve(planted);
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `toolport serve: data dir ${planted}: ${planted} is a symbolic link owned by uid ${attacker.uid}, another user; give the real path or choose another --data-dir`,
    ]);
    expect(readdirSync(victim)).toEqual(['notes']);
    expect([modeOf(victim), modeOf(join(victim, 'notes'))]).toEqual([0o755, 0o644]);
  });

  it('exits 1 for a data dir in a folder every user may write without the sticky bit, which the other user could rename away', async () => {
    const attacker = new OtherUser(world.root);
    const parent = join(world.root, 'open');
    mkdirSync(parent, { mode: 0o755 });
    const dataDir = join(parent, 'data');
    // A data dir made by a real serve, its folder later opened to everyone.
    const made = await world.startBackend({ dataDir });
    expect(await made.stop('SIGTERM')).toBe(0);
    chmodSync(parent, 0o777);

    const run = await serve(dataDir);
    expect(run.code).toBe(1);
    expect(run.stderr.trimEnd().split('\n')).toEqual([
      `toolport serve: data dir ${dataDir}: its folder ${parent} is writable by every user and has no sticky bit, so another user could replace it; choose another --data-dir`,
    ]);
    expect(existsSync(join(dataDir, 'backend.json'))).toBe(false);

    // Why: the other user can indeed move the backend's data dir aside and put its own in its place.
    asNobody('mv', dataDir, join(parent, 'moved'));
    asNobody('mkdir', dataDir);
    expect(statSync(dataDir).uid).toBe(attacker.uid);
    expect(existsSync(join(parent, 'moved', 'admin.token'))).toBe(true);
  });
});
