import { spawn, type ChildProcess } from 'node:child_process';

export interface ProcessRunOptions {
  env: NodeJS.ProcessEnv;
  cwd?: string;
  /** Leads its own process group (as a terminal, or the backend for its agentctls, starts it): signals reach the group. */
  detached?: boolean;
  /** `ignore` for output nobody reads; `inherit` shows it on this process's stderr. Both collect by default. */
  stdout?: 'collect' | 'ignore';
  stderr?: 'collect' | 'inherit';
  /** Written to its stdin, which is then closed; without it stdin is /dev/null. */
  input?: string;
}

/** One spawned process: the output it wrote so far, its exit, and signals that tolerate it being gone. */
export class ProcessRun {
  readonly child: ChildProcess;
  readonly pid: number;
  /** The exit code; null when a signal ended it or it never started. */
  readonly exited: Promise<number | null>;
  /** As `exited`, once its output streams are closed as well (so the output is complete). */
  readonly closed: Promise<number | null>;
  private out = '';
  private err = '';
  private ended = false;
  private readonly onOutput = new Set<() => void>();

  constructor(
    command: string,
    args: string[],
    private readonly options: ProcessRunOptions,
  ) {
    this.child = spawn(command, args, {
      cwd: options.cwd,
      env: options.env,
      detached: options.detached ?? false,
      stdio: [
        options.input === undefined ? 'ignore' : 'pipe',
        options.stdout === 'ignore' ? 'ignore' : 'pipe',
        options.stderr === 'inherit' ? 'inherit' : 'pipe',
      ],
    });
    if (options.input !== undefined) this.child.stdin?.end(options.input);
    this.pid = this.child.pid ?? -1;
    this.child.stdout?.on('data', (chunk: Buffer) => {
      this.out += chunk.toString('utf8');
      for (const wake of this.onOutput) wake();
    });
    this.child.stderr?.on('data', (chunk: Buffer) => {
      this.err += chunk.toString('utf8');
    });
    // A spawn error (no such command) ends the run as an exit would; its message joins stderr.
    const failed = new Promise<null>((done) =>
      this.child.once('error', (error) => {
        this.err += String(error);
        done(null);
      }),
    );
    const exit = new Promise<number | null>((done) => this.child.once('exit', (code) => done(code)));
    const close = new Promise<number | null>((done) => this.child.once('close', (code) => done(code)));
    this.exited = Promise.race([exit, failed]).then((code) => this.end(code));
    this.closed = Promise.race([close, failed]).then((code) => this.end(code));
  }

  stdout(): string {
    return this.out;
  }

  stderr(): string {
    return this.err;
  }

  get running(): boolean {
    return !this.ended;
  }

  /** The first match of `pattern` in stdout, as soon as the output holds one; rejects if the process ends first or after `timeoutMs`. */
  waitForStdout(pattern: RegExp, timeoutMs: number, what: string): Promise<RegExpExecArray> {
    return new Promise((resolve, reject) => {
      const finish = (outcome: () => void): void => {
        clearTimeout(timer);
        this.onOutput.delete(look);
        outcome();
      };
      const look = (): void => {
        const match = pattern.exec(this.out);
        if (match) finish(() => resolve(match));
      };
      const timer = setTimeout(() => finish(() => reject(new Error(`${what} not seen in ${timeoutMs} ms:\n${this.out}\n${this.err}`))), timeoutMs);
      this.onOutput.add(look);
      void this.exited.then((code) => finish(() => reject(new Error(`exited (${code}) before ${what}:\n${this.out}\n${this.err}`))));
      look();
    });
  }

  /** Sends `signal` to its process group when it leads one, else to the process; once it ended, to nothing (its pid may be reused). */
  signal(signal: NodeJS.Signals): void {
    if (this.ended || this.pid <= 0) return;
    try {
      process.kill(this.options.detached ? -this.pid : this.pid, signal);
    } catch {
      // gone between the check and the signal
    }
  }

  /** Signals it and waits for the exit code. */
  async stop(signal: NodeJS.Signals = 'SIGTERM'): Promise<number | null> {
    this.signal(signal);
    return this.exited;
  }

  private end(code: number | null): number | null {
    this.ended = true;
    return code;
  }
}
