import type { Logger } from '../ports/logger';
import type { PluginFailureCause, PluginInstance, PluginStatusEvent } from '../ports/plugin-runtime';
import type { ProcessStarter, SupervisedProcess } from './supervised-process';
import { restartDelayMs, type SupervisionPolicy } from './supervision-policy';

type State = 'active' | 'restarting' | 'gave-up' | 'stopping' | 'stopped';

/**
 * Keeps one started instance running, the same way for every runtime: notices an exit at once
 * or `healthFailuresToCrash` failed health checks in a row, reports `error`, restarts with
 * backoff on a new process, reports `active` again, and gives up after the last attempt.
 */
export class PluginSupervisor<P extends SupervisedProcess> {
  readonly instance: PluginInstance;
  private state: State = 'active';
  private current: P | null = null;
  /** When `current` was adopted. */
  private currentSince: string | undefined;
  /** Restart attempts since the instance was last stable (the event's restartCount). */
  private attempts = 0;
  private healthFailures = 0;
  private readonly timers = new Set<ReturnType<typeof setTimeout>>();
  private pendingRestart: Promise<void> | null = null;
  /** The end of the last crashed process: stop() resolves only once it is really gone. */
  private crashedExit: Promise<unknown> = Promise.resolve();
  private stopping: Promise<void> | null = null;
  private readonly inFlight = new Set<() => void>();

  private constructor(
    identity: Omit<PluginInstance, 'pid' | 'startedAt'>,
    private readonly startProcess: ProcessStarter<P>,
    private readonly policy: SupervisionPolicy,
    private readonly logger: Logger,
    private readonly emit: (event: PluginStatusEvent) => void,
  ) {
    this.instance = Object.freeze({ ...identity, pid: () => this.pid(), startedAt: () => (this.current ? this.currentSince : undefined) });
  }

  /** Starts the first process; throws PluginStartError and leaves nothing running when it fails. */
  static async start<P extends SupervisedProcess>(
    identity: Omit<PluginInstance, 'pid' | 'startedAt'>,
    startProcess: ProcessStarter<P>,
    policy: SupervisionPolicy,
    logger: Logger,
    emit: (event: PluginStatusEvent) => void,
  ): Promise<PluginSupervisor<P>> {
    const supervisor = new PluginSupervisor(identity, startProcess, policy, logger, emit);
    supervisor.adopt(await startProcess());
    logger.info({ plugin_pid: supervisor.pid() }, 'plugin started');
    return supervisor;
  }

  pid(): number | undefined {
    return this.current?.pid;
  }

  /** The running process, or why there is none. */
  process(): { process: P } | { why: string } {
    if (this.state === 'active' && this.current) return { process: this.current };
    return { why: this.state === 'gave-up' ? 'its restarts are exhausted' : this.state };
  }

  /** Registers a call in flight; `onProcessGone` runs if the process dies or stops before it ends. */
  trackCall(onProcessGone: () => void): () => void {
    this.inFlight.add(onProcessGone);
    return () => this.inFlight.delete(onProcessGone);
  }

  stop(): Promise<void> {
    this.stopping ??= this.stopNow();
    return this.stopping;
  }

  private async stopNow(): Promise<void> {
    this.state = 'stopping';
    this.clearTimers();
    await this.pendingRestart;
    await this.crashedExit;
    const running = this.current;
    this.current = null;
    if (running) {
      this.failCallsInFlight();
      await running.stop();
    }
    this.state = 'stopped';
    this.report('stopped', null, false);
  }

  private adopt(process: P): void {
    this.current = process;
    this.currentSince = new Date().toISOString();
    this.state = 'active';
    this.healthFailures = 0;
    process.onExit((reason) => this.onCrash(process, reason, 'exited'));
    this.later(this.policy.stableResetMs, () => {
      if (this.current === process) this.attempts = 0;
    });
    this.scheduleHealthCheck(process);
  }

  private scheduleHealthCheck(process: P): void {
    this.later(this.policy.healthIntervalMs, async () => {
      const problem = await process.checkHealth(this.policy.healthDeadlineMs);
      if (this.current !== process || this.state !== 'active') return;
      if (problem === null) {
        this.healthFailures = 0;
      } else {
        this.healthFailures += 1;
        this.logger.warn({ failures: this.healthFailures, problem }, 'plugin health check failed');
        if (this.healthFailures >= this.policy.healthFailuresToCrash) {
          this.onCrash(process, `plugin failed ${this.policy.healthFailuresToCrash} health checks in a row (${problem})`, 'unhealthy');
          return;
        }
      }
      this.scheduleHealthCheck(process);
    });
  }

  private onCrash(process: P, reason: string, cause: PluginFailureCause): void {
    if (this.current !== process || this.state !== 'active') return;
    this.current = null;
    this.clearTimers();
    this.failCallsInFlight();
    this.crashedExit = process.kill();
    const gaveUp = this.attempts >= this.policy.maxRestarts;
    this.state = gaveUp ? 'gave-up' : 'restarting';
    this.logger.warn({ reason, restart_count: this.attempts, gave_up: gaveUp }, 'plugin crashed');
    this.report('error', reason, gaveUp, cause);
    if (!gaveUp) this.scheduleRestart(this.crashedExit);
  }

  private scheduleRestart(previousExit: Promise<unknown>): void {
    this.attempts += 1;
    const attempt = this.attempts;
    this.later(restartDelayMs(this.policy, attempt), () => {
      this.pendingRestart = this.restart(attempt, previousExit).finally(() => {
        this.pendingRestart = null;
      });
    });
  }

  private async restart(attempt: number, previousExit: Promise<unknown>): Promise<void> {
    await previousExit;
    if (this.state !== 'restarting') return;
    try {
      const process = await this.startProcess();
      if (this.state !== 'restarting') {
        await process.stop();
        return;
      }
      this.adopt(process);
      this.logger.info({ plugin_pid: this.pid(), restart_count: attempt }, 'plugin restarted');
      this.report('active', null, false);
    } catch (error) {
      if (this.state !== 'restarting') return;
      const reason = error instanceof Error ? error.message : String(error);
      const gaveUp = attempt >= this.policy.maxRestarts;
      this.logger.warn({ reason, restart_count: attempt, gave_up: gaveUp }, 'plugin restart failed');
      if (gaveUp) this.state = 'gave-up';
      this.report('error', reason, gaveUp, 'start_failed');
      if (!gaveUp) this.scheduleRestart(Promise.resolve());
    }
  }

  private failCallsInFlight(): void {
    for (const onProcessGone of [...this.inFlight]) onProcessGone();
    this.inFlight.clear();
  }

  private report(status: PluginStatusEvent['status'], reason: string | null, gaveUp: boolean, cause?: PluginFailureCause): void {
    this.emit({ instance: this.instance, status, reason, restartCount: this.attempts, gaveUp, ...(cause ? { cause } : {}) });
  }

  private later(ms: number, run: () => void | Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms);
    (timer as { unref?: () => void }).unref?.();
    this.timers.add(timer);
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
