import { execFileSync } from 'node:child_process';
import { chmodSync, chownSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { buildSync } from 'esbuild';
import { ProcessRun } from '../processes/process-run';

/** The scripts an attacker runs, each `test/support/attacker/<name>-main.ts`. */
export type AttackerScript = 'port-squatter' | 'data-dir-reader' | 'frame-flooder' | 'idle-holder' | 'http-squatter' | 'socket-opener';

export interface AttackerRun {
  code: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Another local user (`nobody`) with no credentials, the way issue 15's attacker was: its
 * scripts run through `setpriv`, from a folder it owns inside the test's sandbox. The sandbox
 * is opened for traversal (0711) so that what stops this user is the data dir's own mode,
 * not the temp folder the test happens to use.
 */
export class OtherUser {
  readonly name = 'nobody';
  readonly uid = Number(execFileSync('id', ['-u', 'nobody'], { encoding: 'utf8' }).trim());
  readonly gid = Number(execFileSync('id', ['-g', 'nobody'], { encoding: 'utf8' }).trim());
  /** Owned by the other user: its scripts, and what it writes (a squatter's record). */
  readonly home: string;

  constructor(sandboxRoot: string) {
    chmodSync(sandboxRoot, 0o711);
    this.home = join(sandboxRoot, 'attacker');
    mkdirSync(this.home, { recursive: true, mode: 0o755 });
    chmodSync(this.home, 0o755);
    chownSync(this.home, this.uid, this.gid);
  }

  /**
   * Bundles a script (ws and all) into one file the other user can read. Why a bundle: this
   * user cannot be assumed to read the checkout's node_modules, and jest transpiles only what
   * a test imports.
   */
  script(name: AttackerScript): string {
    const outfile = join(this.home, `${name}.js`);
    buildSync({
      entryPoints: [join(__dirname, `${name}-main.ts`)],
      outfile,
      bundle: true,
      platform: 'node',
      target: 'node20',
      format: 'cjs',
      // ws loads these native helpers when present and does without them otherwise.
      external: ['bufferutil', 'utf-8-validate'],
      logLevel: 'error',
    });
    chmodSync(outfile, 0o644);
    return outfile;
  }

  /** Starts `script` as the other user; the caller tracks the run so teardown ends it. */
  start(script: string, args: string[]): ProcessRun {
    return new ProcessRun('setpriv', [`--reuid=${this.name}`, '--regid=nogroup', '--clear-groups', process.execPath, script, ...args], {
      cwd: this.home,
      env: { PATH: process.env.PATH },
    });
  }

  /** Runs `script` as the other user to its end (killed after `timeoutMs`). */
  async run(script: string, args: string[], timeoutMs = 20_000): Promise<AttackerRun> {
    const run = this.start(script, args);
    const timer = setTimeout(() => run.signal('SIGKILL'), timeoutMs);
    const code = await run.closed;
    clearTimeout(timer);
    return { code, stdout: run.stdout(), stderr: run.stderr() };
  }
}
