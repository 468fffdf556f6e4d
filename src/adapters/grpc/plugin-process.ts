import { spawn } from 'node:child_process';
import type { ChildProcess } from 'node:child_process';
import type { Logger } from '../../application/ports/logger';
import type { PluginLaunchSpec } from '../../application/ports/plugin-runtime';
import { isSameProcess, processStartTime, type ProcessIdentity, type ProcessStat } from '../shared/process-identity';
import { parseHandshake } from './handshake';
import type { PluginEndpoint } from './handshake';
import { openOutputChannel, type OutputChannel } from './output-channel';
import { LineSplitter, LineTail, logPluginLine } from './plugin-log-lines';
import { descendantsOf, processesWithEnvironment, signalProcesses, waitUntilEnded } from './process-tree';

/**
 * An MCP server's stdio: stdin a pipe the host writes, stdout handed over as it is read (no
 * line cut, no handshake). `onStdout` must copy what it keeps: the buffer is reused.
 */
export interface ProcessStdio {
  onStdout: (chunk: Buffer) => void;
}

export interface ProcessExit {
  code: number | null;
  signal: NodeJS.Signals | null;
}

/** How long to wait for the pipes to drain after an exit, so the last stderr lines are kept. */
const DRAIN_MS = 300;
/** How long an exit waits for the leftovers it killed to be gone. */
const LEFTOVER_WAIT_MS = 1000;

/**
 * One OS process of a plugin, in its own process group: its handshake, its output turned into
 * log records, its exit. Signals go to the whole group and to every descendant found so far
 * (a `setsid` child leaves the group), so helpers it spawned go too.
 */
export class PluginProcess {
  readonly pid: number | undefined;
  /** Resolves once the process exited (or could not be spawned), its leftovers ended and its pipes drained. */
  readonly exited: Promise<ProcessExit>;
  /** Resolves at the exit itself, before the pipes drained. */
  readonly exitEvent: Promise<ProcessExit>;
  private exit: ProcessExit | null = null;
  private spawnError: Error | null = null;
  private readonly stderr = new LineTail(20);
  private readonly exitListeners = new Set<(exit: ProcessExit) => void>();
  private readonly descendants = new Map<number, ProcessIdentity>();
  private readonly descendantListeners = new Set<(found: ProcessIdentity[]) => void>();
  private firstLine: string | null = null;
  /** The child's stdin, for a process spawned with ProcessStdio; null otherwise. */
  readonly stdin: NodeJS.WritableStream | null;
  private onFirstLine: ((line: string) => void) | null = null;

  private constructor(
    child: ChildProcess,
    private readonly logger: Logger,
    /** An environment entry only this start's processes inherit (its private TMPDIR). */
    private readonly marker: string,
    outputs: OutputChannel[],
  ) {
    this.pid = child.pid;
    this.stdin = child.stdin;
    // A server that exits while we write must not crash the host with EPIPE.
    child.stdin?.on('error', () => undefined);
    this.exitEvent = new Promise((resolve) => this.exitListeners.add(resolve));
    this.exited = new Promise((resolve) => {
      const finish = (exit: ProcessExit): void => {
        if (this.exit) return;
        this.exit = exit;
        // Whatever the leader left behind goes with it.
        const leftovers = this.pid === undefined ? [] : this.endLeftovers();
        for (const listener of this.exitListeners) listener(exit);
        const drained = new Promise<void>((done) => {
          void Promise.all(outputs.map((output) => output.closed)).then(() => done());
          setTimeout(done, DRAIN_MS).unref();
        });
        void Promise.all([drained, waitUntilEnded(leftovers, LEFTOVER_WAIT_MS)]).then(() => {
          for (const output of outputs) output.close();
          resolve(exit);
        });
      };
      child.once('exit', (code, signal) => finish({ code, signal }));
      child.on('error', (error) => {
        this.spawnError = error;
        if (child.pid === undefined || child.exitCode !== null) finish({ code: null, signal: null });
      });
    });
  }

  /**
   * Starts `spec.executable` (or `command`, a sandbox that runs it) with exactly `env`, in
   * `spec.installDir`, in a new process group,
   * its stdout and stderr read through output channels made in `env.TMPDIR` (private to this
   * start): lines are cut at 64 KiB as they arrive, so no output grows the host's memory.
   */
  static async spawn(
    spec: PluginLaunchSpec,
    env: NodeJS.ProcessEnv & { TMPDIR: string },
    logger: Logger,
    command: { file: string; args: string[] } = { file: spec.executable, args: spec.args },
    stdio?: ProcessStdio,
  ): Promise<PluginProcess> {
    let onStdout: (line: string, truncated: boolean) => void = () => undefined;
    let onStderr: (line: string, truncated: boolean) => void = () => undefined;
    const stdoutLines = new LineSplitter((line, truncated) => onStdout(line, truncated));
    const stderrLines = new LineSplitter((line, truncated) => onStderr(line, truncated));
    const stdout = await openOutputChannel(env.TMPDIR, '.stdout', stdio ? stdio.onStdout : (chunk) => stdoutLines.push(chunk));
    const stderr = await openOutputChannel(env.TMPDIR, '.stderr', (chunk) => stderrLines.push(chunk));
    void stdout.closed.then(() => stdoutLines.end());
    void stderr.closed.then(() => stderrLines.end());
    let child: ChildProcess;
    try {
      child = spawn(command.file, command.args, {
        cwd: spec.installDir,
        env,
        detached: true,
        stdio: [stdio ? 'pipe' : 'ignore', stdout.childEnd, stderr.childEnd],
      });
    } finally {
      // The child holds its own copies; the channels end when the last holder closes them.
      stdout.childEnd.destroy();
      stderr.childEnd.destroy();
    }
    const process = new PluginProcess(child, logger, `TMPDIR=${env.TMPDIR}`, [stdout, stderr]);
    onStdout = (line, truncated) => process.onStdoutLine(line, truncated);
    onStderr = (line, truncated) => process.onStderrLine(line, truncated);
    return process;
  }

  /** The leader's pid and start time, for the group record; undefined once it is gone. */
  identity(): ProcessIdentity | undefined {
    if (this.pid === undefined || this.exit) return undefined;
    const startTime = processStartTime(this.pid);
    return startTime === undefined ? undefined : { pid: this.pid, startTime };
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

  /** Treats `line` as one the plugin wrote on stderr (its GRPCStdio stream feeds these). */
  onStderrLine(line: string, truncated = false): void {
    this.stderr.push(line);
    logPluginLine(this.logger, 'stderr', line, 'info', truncated);
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

  /** Calls `listener` with the live descendants known, each time that set changes. */
  onDescendants(listener: (known: ProcessIdentity[]) => void): void {
    this.descendantListeners.add(listener);
  }

  /**
   * Walks /proc for the process tree now and remembers what it finds, so a child that the
   * kernel re-parents when the leader exits can still be ended. Ones that ended are forgotten,
   * so the set stays as small as what runs. Called after the start and at each health check
   * (which passes a walk other plugins' checks may share).
   */
  refreshDescendants(processes?: ProcessStat[]): void {
    if (this.pid === undefined || this.exit) return;
    let changed = false;
    for (const [pid, known] of this.descendants) {
      if (isSameProcess(known)) continue;
      this.descendants.delete(pid);
      changed = true;
    }
    for (const found of descendantsOf(this.pid, processes)) {
      if (this.descendants.get(found.pid)?.startTime === found.startTime) continue;
      this.descendants.set(found.pid, found);
      changed = true;
    }
    if (!changed) return;
    const known = [...this.descendants.values()];
    for (const listener of this.descendantListeners) listener(known);
  }

  /** Sends `signal` to every descendant found (walked again now) and to the process group; gone ones are skipped. */
  signalTree(signal: NodeJS.Signals): void {
    if (this.pid === undefined) return;
    this.refreshDescendants();
    signalProcesses(this.descendants.values(), signal);
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
      const timer = setTimeout(() => settle(() => reject(new Error(`it printed no handshake within ${timeoutMs} ms`))), timeoutMs);
      stopExit = this.onExit((exit) => settle(() => reject(new Error(`it exited (${describeExit(exit)}) before its handshake${this.spawnHint()}`))));
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

  /**
   * The leader exited: SIGKILL to its group, to the descendants found before, and to any
   * process still carrying this start's environment marker (a child re-parented before it
   * was ever seen). Returns what it signalled, so the exit can wait for them to be gone.
   */
  private endLeftovers(): ProcessIdentity[] {
    const leftovers = new Map(this.descendants);
    for (const found of [...descendantsOf(this.pid!), ...processesWithEnvironment(this.marker)]) leftovers.set(found.pid, found);
    signalProcesses(leftovers.values(), 'SIGKILL');
    try {
      process.kill(-this.pid!, 'SIGKILL');
    } catch {
      // the group is empty
    }
    return [...leftovers.values()];
  }

  private onStdoutLine(line: string, truncated: boolean): void {
    if (this.firstLine === null) {
      this.firstLine = line;
      this.onFirstLine?.(line);
      return;
    }
    logPluginLine(this.logger, 'stdout', line, 'debug', truncated);
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
