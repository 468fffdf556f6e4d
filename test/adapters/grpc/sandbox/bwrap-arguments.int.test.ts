import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { bwrapArguments, hostSystemEntries } from '../../../../src/adapters/grpc/sandbox/bwrap-arguments';

/** What a process started with bwrapArguments can see, run through the real /usr/bin/bwrap. */
describe('bwrapArguments under bubblewrap', () => {
  const root = mkdtempSync(join(tmpdir(), 'toolport-bwrap-'));
  const layout = {
    installDir: join(root, 'plugins', 'p', '1.0.0'),
    dataDir: join(root, 'plugin-data', 'p'),
    tmpDir: join(root, 'plugin-tmp', 't1'),
    network: false,
    readPaths: [],
    writePaths: [],
  };
  const secret = join(root, 'secret.key');

  beforeAll(() => {
    for (const dir of [layout.installDir, layout.dataDir, layout.tmpDir]) mkdirSync(dir, { recursive: true });
    writeFileSync(secret, 'key');
    writeFileSync(join(layout.installDir, 'main.sh'), 'echo installed\n');
  });
  afterAll(() => rmSync(root, { recursive: true, force: true }));

  const run = (script: string): string =>
    execFileSync('/usr/bin/bwrap', bwrapArguments(layout, '/bin/sh', ['-c', script], hostSystemEntries()), { encoding: 'utf8' }).trim();

  it('shows its own folders at their host paths and nothing else of the data dir', () => {
    expect(run(`cat ${layout.installDir}/main.sh; echo x > ${layout.dataDir}/f && cat ${layout.dataDir}/f; pwd`)).toBe(
      `echo installed\nx\n${layout.installDir}`,
    );
    expect(run(`test -e ${secret} && echo seen || echo hidden`)).toBe('hidden');
    expect(run(`echo y > ${layout.installDir}/w 2>/dev/null && echo wrote || echo read-only`)).toBe('read-only');
  });

  it('writes nowhere but its data dir and TMPDIR: not the root nor the folders made in it to hold its own', () => {
    // In a user namespace the plugin owns the sandbox's empty root: only its remount read-only keeps it from writing there.
    for (const path of ['/planted', join(root, 'planted'), join(root, 'plugins', 'planted')]) {
      expect({ path, wrote: run(`echo y > ${path} 2>/dev/null && echo wrote || echo refused`) }).toEqual({ path, wrote: 'refused' });
    }
    expect(run(`echo y > ${layout.tmpDir}/f && cat ${layout.tmpDir}/f`)).toBe('y');
  });

  it('sees no process outside and has only a loopback without the network permission', () => {
    expect(run('ls /proc | grep -c "^[0-9]"')).toMatch(/^[1-5]$/);
    expect(run('ls /sys/class/net 2>/dev/null || cat /proc/net/dev | tail -n +3 | cut -d: -f1 | tr -d " "')).toBe('lo');
  });
});
