import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { ProcessRun } from '../support/processes/process-run';
import { waitUntil } from '../support/test-backend';

/**
 * A client library run as its own process by a driver in fixtures/clients (they are ESM-only,
 * and a separate process is how an agent runs them anyway). It speaks the driver line
 * protocol: one command a line in, one JSON answer a line out, plus `{"changed": n}` lines
 * (hence its own spawn: the kit's ProcessRun has no stdin).
 */
export class ClientProcess {
  private readonly answers: unknown[] = [];
  private changes = 0;
  private stderr = '';
  private exited = false;

  private constructor(private readonly child: ChildProcess) {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const message = JSON.parse(line) as { changed?: number };
      if (message.changed !== undefined) this.changes = message.changed;
      else this.answers.push(message);
    });
    child.stderr!.on('data', (chunk: Buffer) => {
      this.stderr += chunk.toString('utf8');
    });
    child.once('exit', () => {
      this.exited = true;
    });
  }

  static async start(script: string, env: NodeJS.ProcessEnv): Promise<ClientProcess> {
    const child = spawn(process.execPath, [script], { env: { PATH: process.env.PATH ?? '', ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
    const driver = new ClientProcess(child);
    await driver.next(20_000);
    return driver;
  }

  /** Sends one command and returns its answer. */
  async send(command: string): Promise<any> {
    this.child.stdin!.write(`${command}\n`);
    return this.next(10_000);
  }

  /** The change notifications the library surfaced so far. */
  changed(): number {
    return this.changes;
  }

  output(): string {
    return this.stderr;
  }

  /** Asks the driver to close its client and exit; kills it if it does not within 5 s. */
  async stop(): Promise<void> {
    if (this.exited) return;
    this.child.stdin!.end('quit\n');
    try {
      await waitUntil(() => this.exited, 5000, 'the client process to exit');
    } catch {
      this.child.kill('SIGKILL');
      await waitUntil(() => this.exited, 2000, 'the killed client process');
    }
  }

  private async next(timeoutMs: number): Promise<unknown> {
    await waitUntil(() => this.answers.length > 0 || this.exited, timeoutMs, `an answer (stderr: ${this.stderr.slice(-500)})`);
    if (this.answers.length === 0) throw new Error(`the client process exited: ${this.stderr.slice(-1000)}`);
    return this.answers.shift();
  }
}

/** Runs a CLI to completion (the kit's ProcessRun) and returns its stdout; rejects with its stderr when it fails. */
export async function runCli(args: string[], options: { cwd: string; env?: NodeJS.ProcessEnv; timeoutMs?: number }): Promise<string> {
  const run = new ProcessRun(process.execPath, args, { cwd: options.cwd, env: { PATH: process.env.PATH ?? '', ...options.env } });
  const timer = setTimeout(() => run.signal('SIGKILL'), options.timeoutMs ?? 20_000);
  const code = await run.closed.finally(() => clearTimeout(timer));
  if (code !== 0) throw new Error(`exit ${code}: ${run.stderr().slice(-1500)}`);
  return run.stdout();
}
