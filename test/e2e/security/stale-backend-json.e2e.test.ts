import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { OtherUser } from '../../support/attacker/other-user';
import { readSquatterRecord, type SquatterEntry } from '../../support/attacker/squatter-record';
import { BackendWorld } from '../../support/processes/backend-world';
import { ProcessRun } from '../../support/processes/process-run';
import { runToolport } from '../../support/processes/run-toolport';
import { filesHolding } from '../../support/secret-leaks';

jest.setTimeout(60_000);

type HttpEntry = Extract<SquatterEntry, { method: string }>;

/** Field 22 of /proc/<pid>/stat: when the process started, in clock ticks after boot. */
function startTimeOf(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19]);
}

/**
 * Issue 25's stale `backend.json` (docs/cli.md, "Finding the backend"): the backend was killed
 * and left its file; the pid in it now names a live process that is not the backend, and another
 * local user (`nobody`) listens on the port it names. The CLI must not send that user the admin token.
 */
describe('a backend.json left by a killed backend, its port taken by another user', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-stale-json-' });

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('is refused as stale when the pid names a process of another start time, and a server that cannot sign the CLI in gets no token', async () => {
    const killed = await world.start();
    const token = killed.token;
    const port = new URL(killed.url).port;
    await killed.stop('SIGKILL');
    const infoFile = join(world.dataDir, 'backend.json');
    const left = JSON.parse(readFileSync(infoFile, 'utf8')) as { url: string; pid: number; start_time?: number; instance_id?: string };
    expect(left).toMatchObject({ url: killed.url, pid: killed.pid });

    // A process that is nothing to Toolport stands in for one that took the backend's pid.
    const bystander = world.track(new ProcessRun(process.execPath, ['-e', 'setTimeout(() => {}, 60000)', world.root], { env: {} }));
    const attacker = new OtherUser(world.root);
    const recordFile = join(attacker.home, 'received.jsonl');
    const squatter = world.track(attacker.start(attacker.script('http-squatter'), [port, recordFile]));
    await squatter.waitForStdout(/"listening"/, 10_000, 'the squatter to listen on the port backend.json names');
    const cli = () => runToolport(['plugin', 'list', '--data-dir', world.dataDir], { timeoutMs: 20_000 });

    // 1. The pid is alive, but it started later than the backend that wrote the file.
    writeFileSync(infoFile, JSON.stringify({ ...left, pid: bystander.pid }));
    const stale = await cli();
    expect({ code: stale.code, stdout: stale.stdout }).toEqual({ code: 3, stdout: '' });
    expect(stale.stderr).toContain(`${infoFile} is stale: the backend with pid ${bystander.pid} is not running`);
    expect(stale.stderr).not.toMatch(/\n\s+at /);
    // It did not even connect.
    expect(readSquatterRecord(recordFile)).toEqual([]);

    // 2. Even a file whose pid and start time match a live process: the server on the port must
    // prove it holds the admin token's verifier before anything else is sent, and the squatter cannot.
    writeFileSync(infoFile, JSON.stringify({ ...left, pid: bystander.pid, start_time: startTimeOf(bystander.pid) }));
    const unproven = await cli();
    expect({ code: unproven.code, stdout: unproven.stdout }).toEqual({ code: 3, stdout: '' });
    expect(unproven.stderr).toContain(`the server at ${killed.url} did not prove it is the backend`);
    expect(unproven.stderr).toContain('nothing more was sent to it');
    const requests = readSquatterRecord(recordFile).filter((entry): entry is HttpEntry => entry.kind === 'http');
    expect(requests.map((entry) => `${entry.method} ${entry.url}`)).toEqual(['POST /api/v1/auth/begin', 'POST /api/v1/auth/finish']);
    expect(requests.filter((entry) => 'authorization' in entry.headers)).toEqual([]);
    const bytes = readSquatterRecord(recordFile)
      .filter((entry) => entry.kind === 'bytes')
      .map((entry) => entry.text)
      .join('');
    // The recorder works (the SCRAM user name is there), and the token is not, in any form.
    expect(bytes).toContain('n=admin,r=');
    for (const form of [token, Buffer.from(token).toString('hex'), encodeURIComponent(token), Buffer.from(token).toString('base64url')]) {
      expect({ form, found: bytes.includes(form) }).toEqual({ form, found: false });
    }
    expect(filesHolding(attacker.home, token)).toEqual([]);
  });
});
