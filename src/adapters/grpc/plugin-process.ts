import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Logger } from '../../application/ports/logger';
import type { PluginLaunchSpec } from '../../application/ports/plugin-runtime';
import { parseHandshake } from './handshake';
import type { PluginEndpoint } from './handshake';
import { forEachLine, LineTail, logPluginLine } from './plugin-log-lines';

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How long to wait for the pipes to drain after an exit, so the last stderr lines are kept. */
const DRAIN_MS = 300;

/**
 * One OS process of a plugin, in its own process group: its handshake, its output turned into
 * log records, its exit. Signals always go to the whole group so helpers it spawned go too.
 */
export class PluginProcess {
  readonly pid: number | undefined;
  /** Resolves once the process exited (or could not be spawned) and its pipes drained. */
  readonly exited: Promise<ProcessExit>;
  /** Resolves at the exit itself, before the pipes drained. */
  readonly exitEvent: Promise<ProcessExit>;
  private exit: ProcessExit | null = null;
  private spawnError: Error | null = null;
  private readonly stderr = new LineTail(20);
  private readonly exitListeners = new Set<(exit: ProcessExit) => void>();
  private firstLine: string | null = null;
  private onFirstLine: ((line: string) => void) | null = null;

  private constructor(
    private readonly child: ChildProcess,
    private readonly logger: Logger,
  ) {
    this.pid = child.pid;
    forEachLine(child.stderr!, (line) => {
      this.stderr.push(line);
      logPluginLine(logger, 'stderr', line, 'info');
    });
    forEachLine(child.stdout!, (line) => this.onStdoutLine(line));
    this.exitEvent = new Promise((resolve) => this.exitListeners.add(resolve));
    this.exited = new Promise((resolve) => {
      const finish = (exit: ProcessExit): void => {
        if (this.exit) return;
        this.exit = exit;
        // Whatever the leader left behind in its group goes with it.
        if (this.pid !== undefined) this.signalGroup('SIGKILL');
        for (const listener of this.exitListeners) listener(exit);
        const drained = new Promise<void>((done) => {
          child.once('close', () => done());
          setTimeout(done, DRAIN_MS).unref();
        });
        void drained.then(() => resolve(exit));
      };
      child.once('exit', (code, signal) => finish({ code, signal }));
      child.on('error', (error) => {
        this.spawnError = error;
        if (child.pid === undefined || child.exitCode !== null) finish({ code: null, signal: null });
      });
    });
  }

  /** Starts `spec.executable` with exactly `env`, in `spec.installDir`, in a new process group. */
  static spawn(spec: PluginLaunchSpec, env: NodeJS.ProcessEnv, logger: Logger): PluginProcess {
    const child = spawn(spec.executable, spec.args, {
      cwd: spec.installDir,
      env,
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    return new PluginProcess(child, logger);
  }

  get hasExited(): boolean {
    return this.exit !== null;
  }

  get exitCode(): number | null {
    return this.exit?.code ?? null;
  }

  stderrTail(): string[] {
    return this.stderr.snapshot();
  }

  /** Calls `listener` once, synchronously with the child's exit event (at once, not after a drain). */
  onExit(listener: (exit: ProcessExit) => void): () => void {
    if (this.exit) {
      listener(this.exit);
      return () => undefined;
    }
    this.exitListeners.add(listener);
    return () => this.exitListeners.delete(listener);
  }

  /** Sends `signal` to the process group; a group already gone is not an error. */
  signalGroup(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    try {
      process.kill(-this.pid, signal);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ESRCH') throw error;
    }
  }

  /** Resolves with the endpoint of the first stdout line, or rejects with a reason (no line, bad line, exit). */
  waitForHandshake(timeoutMs: number): Promise<PluginEndpoint> {
    return new Promise((resolve, reject) => {
      let settled = false;
      let stopExit = (): void => undefined;
      const settle = (outcome: () => void): void => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        stopExit();
        outcome();
      };
      const timer = setTimeout(
        () => settle(() => reject(new Error(`it printed no handshake within ${timeoutMs} ms`))),
        timeoutMs,
      );
      stopExit = this.onExit((exit) =>
        settle(() => reject(new Error(`it exited (${describeExit(exit)}) before its handshake${this.spawnHint()}`))),
      );
      const accept = (line: string): void =>
        settle(() => {
          const parsed = parseHandshake(line);
          if (parsed.ok) resolve(parsed.endpoint);
          else reject(new Error(parsed.reason));
        });
      if (this.firstLine !== null) accept(this.firstLine);
      else this.onFirstLine = accept;
    });
  }

  private onStdoutLine(line: string): void {
    if (this.firstLine === null) {
      this.firstLine = line;
      this.onFirstLine?.(line);
      return;
    }
    logPluginLine(this.logger, 'stdout', line, 'debug');
  }

  private spawnHint(): string {
    return this.spawnError ? `: ${this.spawnError.message}` : '';
  }
}

export function describeExit(exit: ProcessExit): string {
  if (exit.signal) return `signal ${exit.signal}`;
  if (exit.code === null) return 'no exit code';
  return `exit code ${exit.code}`;
}
