import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { rawRequest } from '../../support/clients/raw-request';
import { hostileTgz, type RawTarEntry } from '../../support/packages/hostile-tgz';
import { writeSlowPlugin } from '../../support/packages/slow-plugin';
import type { RunningBackend } from '../../support/processes/backend-process';
import { BackendWorld } from '../../support/processes/backend-world';
import { pluginFolders } from '../../support/processes/toolport-paths';

const PLUGIN = 'chaos.evil';

/** Every file and folder name under `dir` (links not followed). */
function namesUnder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  const found: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    found.push(entry.name);
    if (entry.isDirectory()) found.push(...namesUnder(join(dir, entry.name)));
  }
  return found;
}

/** Packages built to escape the data dir, installed through the API: each refused, nothing written. */
describe('chaos: hostile plugin packages', () => {
  const world = new BackendWorld([], { prefix: 'toolport-chaos-packages-' });
  let dir: string;
  let dataDir: string;
  let backend: RunningBackend | undefined;
  /** The files of a real, working package (manifest.yaml and main.js). */
  let goodEntries: RawTarEntry[];
  const marker = `planted-${randomBytes(6).toString('hex')}`;
  const planted: string[] = [];

  function plant(label: string): string {
    const name = `${marker}-${label}`;
    planted.push(name);
    return name;
  }

  beforeAll(async () => {
    dir = world.root;
    dataDir = world.dataDir;
    const pkg = writeSlowPlugin(join(dir, 'good'), PLUGIN);
    goodEntries = [
      { name: 'manifest.yaml', type: 'file', content: readFileSync(join(pkg, 'manifest.yaml')) },
      { name: 'main.js', type: 'file', content: readFileSync(join(pkg, 'main.js')), mode: 0o755 },
    ];
    backend = await world.start();
  }, 60_000);

  afterAll(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  async function uploadTgz(tgz: Buffer): Promise<{ status: number; json: unknown }> {
    return rawRequest(`${backend!.url}/api/v1/plugins`, {
      method: 'POST',
      headers: { authorization: `Bearer ${backend!.token}`, 'content-type': 'application/gzip' },
      body: tgz,
    });
  }

  function expectInvalidPackage(answer: { status: number; json: unknown }, what: string, pathHint?: string): void {
    expect({ what, status: answer.status }).toEqual({ what, status: 422 });
    const error = (answer.json as { error: { code: string; details: Array<{ path: string; message: string }> } }).error;
    expect(error.code).toBe('INVALID_PACKAGE');
    expect(error.details.length).toBeGreaterThan(0);
    for (const violation of error.details) expect(Object.keys(violation).sort()).toEqual(['message', 'path']);
    if (pathHint) expect(error.details.map((v) => v.path).join('\n')).toContain(pathHint);
  }

  it('installs the clean package (the control: refusals below are about the hostile entries)', async () => {
    const answer = await uploadTgz(hostileTgz(goodEntries));
    expect(answer.status).toBe(201);
    expect((await world.api('DELETE', `/api/v1/plugins/${PLUGIN}`)).status).toBe(204);
  }, 30_000);

  it('refuses tarballs with traversal, absolute paths, escaping links and an oversized manifest', async () => {
    const outside = dirname(dataDir);
    const cases: Array<{ what: string; entries: RawTarEntry[]; hint?: string }> = [];
    const a = plant('dotdot');
    cases.push({ what: '../ entry', entries: [...goodEntries, { name: `../${a}`, type: 'file', content: 'x' }], hint: a });
    const b = plant('deep-dotdot');
    cases.push({ what: 'nested ../../ entry', entries: [...goodEntries, { name: `lib/../../../${b}`, type: 'file', content: 'x' }], hint: b });
    const c = plant('dot-slash-dotdot');
    cases.push({ what: './../ entry', entries: [...goodEntries, { name: `./../${c}`, type: 'file', content: 'x' }], hint: c });
    const d = plant('abs-tmp');
    cases.push({ what: 'absolute path into /tmp', entries: [...goodEntries, { name: join(tmpdir(), d), type: 'file', content: 'x' }], hint: d });
    const e = plant('abs-parent');
    cases.push({ what: 'absolute path next to the data dir', entries: [...goodEntries, { name: join(outside, e), type: 'file', content: 'x' }], hint: e });
    const f = plant('via-relative-link');
    cases.push({
      what: 'write through a symlink to ../..',
      entries: [...goodEntries, { name: 'escape', type: 'symlink', linkname: '../../..' }, { name: `escape/${f}`, type: 'file', content: 'x' }],
      hint: 'escape',
    });
    const g = plant('via-absolute-link');
    cases.push({
      what: 'write through a symlink to the data dir parent',
      entries: [...goodEntries, { name: 'out', type: 'symlink', linkname: outside }, { name: `out/${g}`, type: 'file', content: 'x' }],
      hint: 'out',
    });
    cases.push({ what: 'a symlink to /etc/passwd', entries: [...goodEntries, { name: 'passwd', type: 'symlink', linkname: '/etc/passwd' }], hint: 'passwd' });
    cases.push({
      what: 'a symlink chain that leaves the package',
      entries: [
        ...goodEntries,
        { name: 'd/', type: 'dir' },
        { name: 'd/up', type: 'symlink', linkname: '..' },
        { name: 'd/esc', type: 'symlink', linkname: 'up/..' },
      ],
      hint: 'd/esc',
    });
    cases.push({ what: 'a hard link to /etc/passwd', entries: [...goodEntries, { name: 'hl', type: 'hardlink', linkname: '/etc/passwd' }], hint: 'hl' });
    cases.push({ what: 'a hard link with ..', entries: [...goodEntries, { name: 'hl2', type: 'hardlink', linkname: '../../etc/passwd' }], hint: 'hl2' });
    cases.push({
      what: 'a manifest over 1 MiB',
      entries: [
        { name: 'manifest.yaml', type: 'file', content: Buffer.concat([goodEntries[0].content as Buffer, Buffer.from(`# ${'x'.repeat(1024 * 1024)}\n`)]) },
        goodEntries[1],
      ],
      hint: 'manifest.yaml',
    });

    for (const testCase of cases) {
      expectInvalidPackage(await uploadTgz(hostileTgz(testCase.entries)), testCase.what, testCase.hint);
      // The same file named by path (the JSON body) is refused the same way.
      const file = join(dir, 'inputs', `${cases.indexOf(testCase)}.tgz`);
      mkdirSync(dirname(file), { recursive: true });
      writeFileSync(file, hostileTgz(testCase.entries));
      expectInvalidPackage(
        await world.api('POST', '/api/v1/plugins', { path: file }).then((r) => ({ status: r.status, json: r.body })),
        `${testCase.what} (by path)`,
        testCase.hint,
      );
    }
    expect((await world.api('GET', '/api/v1/plugins')).body).toEqual([]);
    expect((await rawRequest(`${backend!.url}/healthz`, { method: 'GET' })).status).toBe(200);
  }, 60_000);

  it('refuses package folders with escaping links or an oversized manifest', async () => {
    const secretDir = join(dir, 'secrets');
    mkdirSync(secretDir);
    writeFileSync(join(secretDir, plant('secret')), 'do not copy me');
    const folders: Array<{ what: string; build: (pkg: string) => void; hint: string }> = [
      { what: 'a folder link leaving the package', build: (pkg) => symlinkSync(secretDir, join(pkg, 'data')), hint: 'data' },
      { what: 'a relative link leaving the package', build: (pkg) => symlinkSync('../secrets', join(pkg, 'rel')), hint: 'rel' },
      { what: 'a dangling link', build: (pkg) => symlinkSync('nowhere', join(pkg, 'dangling')), hint: 'dangling' },
      {
        what: 'the executable as a link to a file outside',
        build: (pkg) => {
          writeFileSync(join(secretDir, 'main.js'), readFileSync(join(pkg, 'main.js')));
          symlinkSync(join(secretDir, 'main.js'), join(pkg, 'main.js.link'));
          writeFileSync(join(pkg, 'manifest.yaml'), readFileSync(join(pkg, 'manifest.yaml'), 'utf8').replace('any: main.js', 'any: main.js.link'));
        },
        hint: 'main.js.link',
      },
      {
        what: 'a manifest over 1 MiB',
        build: (pkg) => writeFileSync(join(pkg, 'manifest.yaml'), `${readFileSync(join(pkg, 'manifest.yaml'), 'utf8')}# ${'y'.repeat(1024 * 1024)}\n`),
        hint: 'manifest.yaml',
      },
    ];
    for (const [index, folder] of folders.entries()) {
      const pkg = writeSlowPlugin(join(dir, `folder-${index}`), PLUGIN);
      folder.build(pkg);
      const answer = await world.api('POST', '/api/v1/plugins', { path: pkg });
      expectInvalidPackage({ status: answer.status, json: answer.body }, folder.what, folder.hint);
    }
    expect((await world.api('GET', '/api/v1/plugins')).body).toEqual([]);
  }, 60_000);

  it('wrote none of the planted names anywhere: next to the data dir, in /tmp, or inside the data dir', () => {
    expect(planted.length).toBeGreaterThan(5);
    const secret = planted.find((name) => name.endsWith('-secret'))!;
    const inTmp = readdirSync(tmpdir()).filter((name) => name.startsWith(marker));
    expect(inTmp).toEqual([]);
    const nearby = namesUnder(dirname(dataDir)).filter((name) => name.startsWith(marker) && name !== secret);
    expect(nearby).toEqual([]);
    // The secret exists only where the test put it: never copied into the data dir.
    expect(namesUnder(dataDir).filter((name) => name.startsWith(marker))).toEqual([]);
    expect(namesUnder(join(dataDir, 'tmp'))).toEqual([]);
    expect(existsSync(join(pluginFolders(dataDir), 'plugins'))).toBe(true);
    expect(namesUnder(join(pluginFolders(dataDir), 'plugins'))).toEqual([]);
  });
});
