import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { OtherUser } from '../../support/attacker/other-user';
import { readSquatterRecord, type SquatterEntry } from '../../support/attacker/squatter-record';
import { ConsoleBrowser } from '../../support/browser/console-browser';
import { eventually } from '../../support/eventually';
import { BackendWorld } from '../../support/processes/backend-world';
import { filesHolding } from '../../support/secret-leaks';

jest.setTimeout(60_000);

type HttpEntry = Extract<SquatterEntry, { method: string }>;

const requestsIn = (file: string): HttpEntry[] => readSquatterRecord(file).filter((entry): entry is HttpEntry => entry.kind === 'http');

/**
 * Issue 25's second high weakness, tried by another local user (`nobody`): the console is
 * open and signed in, the backend stops, and the attacker binds the freed port and records
 * every byte the console sends it while it tries to reconnect (docs/http-api.md §1).
 */
describe('a port squatter behind an open console', () => {
  const world = new BackendWorld([], { prefix: 'toolport-security-console-squatter-' });
  const browser = new ConsoleBrowser(() => world.backend.url);

  afterAll(async () => {
    await browser.close();
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('receives neither the admin token nor a credential the real backend accepts, and the console reconnects to the real backend after', async () => {
    const first = await world.start();
    const token = first.token;
    const port = new URL(first.url).port;
    await browser.start();
    const { page } = await browser.open(`/console/#token=${encodeURIComponent(token)}`);
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor();
    // A second tab, which the operator will reload while the backend is down.
    const reloaded = (await browser.open(`/console/#token=${encodeURIComponent(token)}`)).page;
    await reloaded.getByRole('status').filter({ hasText: 'Live' }).waitFor();

    const attacker = new OtherUser(world.root);
    const squatterScript = attacker.script('http-squatter');
    const recordFile = join(attacker.home, 'received.jsonl');
    expect(await first.stop('SIGTERM')).toBe(0);
    const squatter = world.track(attacker.start(squatterScript, [port, recordFile]));
    const [ready] = await squatter.waitForStdout(/^\{.*"listening".*\}\n/m, 10_000, 'the squatter to listen on the backend port');
    expect(JSON.parse(ready)).toEqual({ listening: Number(port), uid: attacker.uid });

    // The console redials every 0.5–5 s: wait for three of its sign-ins to reach the squatter
    // (or for a request carrying a credential, which a console before issue 25 sent at once).
    await eventually(
      () => {
        const seen = requestsIn(recordFile);
        return seen.filter((entry) => entry.url === '/api/v1/auth/begin').length >= 3 || seen.some((entry) => 'authorization' in entry.headers);
      },
      20_000,
      'the console to try the squatter three times',
    );
    // The reload loads the squatter's page in the console's origin, which reads the tab's storage.
    await reloaded.reload();
    const exfil = await eventually(
      () => requestsIn(recordFile).find((entry) => entry.url === '/exfil'),
      10_000,
      "the squatter's page to post the reloaded tab's storage",
    );
    const kept = JSON.parse(exfil.body ?? '{}') as Record<string, string>;
    const keptCredential = /^credential:(tpc1_\S+)$/.exec(kept['toolport.console-credential'] ?? '')?.[1];
    expect(JSON.stringify(kept)).not.toContain(token);
    expect(keptCredential).toEqual(expect.any(String));

    const requests = requestsIn(recordFile).filter((entry) => entry.url.startsWith('/api/'));
    // What it asked: only the sign-in's steps, never the live channel or anything else, and no credential header on any.
    expect([...new Set(requests.map((entry) => `${entry.method} ${entry.url}`))].sort()).toEqual(['POST /api/v1/auth/begin', 'POST /api/v1/auth/finish']);
    expect(requests.filter((entry) => 'authorization' in entry.headers)).toEqual([]);
    // The recorder works: it holds the SCRAM user name in the bytes as sent…
    const bytes = readSquatterRecord(recordFile)
      .filter((entry) => entry.kind === 'bytes')
      .map((entry) => entry.text)
      .join('');
    expect(bytes).toContain('n,,n=admin,r=');
    // …and not the token: in clear, base64, hex or URL-encoded, in what it wrote or anywhere it could write.
    for (const form of [token, Buffer.from(token).toString('hex'), encodeURIComponent(token), Buffer.from(token).toString('base64url')]) {
      expect({ form, found: bytes.includes(form) }).toEqual({ form, found: false });
    }
    expect(filesHolding(attacker.home, token)).toEqual([]);
    const page0 = await page.content();
    expect(page0).not.toContain(token);

    // The real backend comes back on that port: every request the squatter got, replayed to it, earns no credential.
    await squatter.stop('SIGKILL');
    const second = await world.start({ args: ['--port', port] });
    for (const entry of requests) {
      const headers = Object.fromEntries(Object.entries(entry.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))) as Record<
        string,
        string
      >;
      const answer = await fetch(`${second.url}${entry.url}`, { method: entry.method, headers, body: entry.body === '' ? undefined : entry.body });
      const text = await answer.text();
      expect({ url: entry.url, credential: /"credential"/.test(text) }).toEqual({ url: entry.url, credential: false });
      if (entry.url === '/api/v1/auth/finish') expect(answer.status).toBeGreaterThanOrEqual(400);
    }
    // What the reloaded tab kept is a credential of the stopped backend process: the new one refuses it.
    const withKept = await fetch(`${second.url}/api/v1/plugins`, { headers: { authorization: `Bearer ${keptCredential}` } });
    expect(withKept.status).toBe(401);
    // The control: the console itself signs in to the real backend again and is live, with no reload.
    await page.getByRole('status').filter({ hasText: 'Live' }).waitFor({ timeout: 15_000 });
    expect(readFileSync(join(world.dataDir, 'admin.token'), 'utf8').trim()).toBe(token);
    // The reloaded tab, back on the real console, holds a credential that no longer works: it asks for the token.
    await reloaded.goto(`${second.url}/console/`);
    await reloaded.getByLabel('Admin token').waitFor({ timeout: 15_000 });
  });
});
