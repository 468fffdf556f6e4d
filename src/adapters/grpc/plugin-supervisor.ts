import type { Logger } from '../../application/ports/logger';
import type { PluginInstance, PluginLaunchSpec, PluginStatusEvent } from '../../application/ports/plugin-runtime';
import { launchPlugin } from './launch-plugin';
import type { LaunchedPlugin } from './launch-plugin';
import type { PluginConnection } from './plugin-connection';
import { describeExit } from './plugin-process';
import { restartDelayMs } from './restart-policy';
import type { RestartPolicy } from './restart-policy';
import { stopPluginProcess } from './stop-plugin-process';
import type { StopTimings } from './stop-plugin-process';

export interface SupervisionSettings extends RestartPolicy {
  startTimeoutMs: number;
  healthIntervalMs: number;
  stopTimings: StopTimings;
}

type State = 'active' | 'restarting' | 'gave-up' | 'stopping' | 'stopped';

const HEALTH_DEADLINE_MS = 1000;
const HEALTH_FAILURES_TO_CRASH = 3;

/**
 * Keeps one started instance running: notices an exit at once (the child's exit event) or
 * three failed health checks in a row, reports `error`, restarts with backoff on a new process
 * and a new channel, reports `active` again, and gives up after the last attempt.
 */
export class PluginSupervisor {
  readonly instance: PluginInstance;
  private state: State = 'active';
  private current: LaunchedPlugin | null = null;
  /** Restart attempts since the instance was last stable (the event's restartCount). */
  private attempts = 0;
  private healthFailures = 0;
  private readonly timers = new Set<NodeJS.Timeout>();
  private pendingRestart: Promise<void> | null = null;
  /** The exit of the last crashed process: stop() resolves only once it is really gone. */
  private crashedExit: Promise<unknown> = Promise.resolve();
  private stopping: Promise<void> | null = null;
  private readonly inFlight = new Set<() => void>();

  private constructor(
    instanceId: string,
    private readonly spec: PluginLaunchSpec,
    private readonly env: NodeJS.ProcessEnv,
    private readonly settings: SupervisionSettings,
    private readonly logger: Logger,
    private readonly emit: (event: PluginStatusEvent) => void,
  ) {
    this.instance = Object.freeze({
      instanceId,
      pluginId: spec.pluginId,
      version: spec.version,
      pid: () => this.pid(),
    });
  }

  /** Launches the first process; throws PluginStartError and leaves nothing running when it fails. */
  static async start(
    instanceId: string,
    spec: PluginLaunchSpec,
    env: NodeJS.ProcessEnv,
    settings: SupervisionSettings,
    logger: Logger,
    emit: (event: PluginStatusEvent) => void,
  ): Promise<PluginSupervisor> {
    const supervisor = new PluginSupervisor(instanceId, spec, env, settings, logger, emit);
    supervisor.adopt(await launchPlugin(spec, env, settings.startTimeoutMs, logger));
    logger.info({ pid: supervisor.pid() }, 'plugin started');
    return supervisor;
  }

  pid(): number | undefined {
    const child = this.current?.process;
    return child && !child.hasExited ? child.pid : undefined;
  }

  /** The connection of the running process, or null with why there is none. */
  connection(): { connection: PluginConnection } | { why: string } {
    if (this.state === 'active' && this.current) return { connection: this.current.connection };
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
    const launched = this.current;
    this.current = null;
    if (launched) {
      this.failCallsInFlight();
      const exit = await stopPluginProcess(launched.process, launched.connection, this.settings.stopTimings);
      this.logger.info({ exit: describeExit(exit) }, 'plugin stopped');
    }
    this.state = 'stopped';
    this.report('stopped', null, false);
  }

  private adopt(launched: LaunchedPlugin): void {
    this.current = launched;
    this.state = 'active';
    this.healthFailures = 0;
    launched.process.onExit((exit) => this.onCrash(launched, `plugin process exited (${describeExit(exit)})`));
    this.later(this.settings.stableResetMs, () => {
      if (this.current === launched) this.attempts = 0;
    });
    this.scheduleHealthCheck(launched);
  }

  private scheduleHealthCheck(launched: LaunchedPlugin): void {
    this.later(this.settings.healthIntervalMs, async () => {
      const problem = await launched.connection.checkHealth(HEALTH_DEADLINE_MS);
      if (this.current !== launched || this.state !== 'active') return;
      if (problem === null) {
        this.healthFailures = 0;
      } else {
        this.healthFailures += 1;
        this.logger.warn({ failures: this.healthFailures, problem }, 'plugin health check failed');
        if (this.healthFailures >= HEALTH_FAILURES_TO_CRASH) {
          this.onCrash(launched, `plugin failed ${HEALTH_FAILURES_TO_CRASH} health checks in a row (${problem})`);
          return;
        }
      }
      this.scheduleHealthCheck(launched);
    });
  }

  private onCrash(launched: LaunchedPlugin, reason: string): void {
    if (this.current !== launched || this.state !== 'active') return;
    this.current = null;
    this.clearTimers();
    this.failCallsInFlight();
    launched.connection.close();
    launched.process.signalGroup('SIGKILL');
    this.crashedExit = launched.process.exited;
    const gaveUp = this.attempts >= this.settings.maxRestarts;
    this.state = gaveUp ? 'gave-up' : 'restarting';
    this.logger.warn({ reason, restart_count: this.attempts, gave_up: gaveUp }, 'plugin crashed');
    this.report('error', reason, gaveUp);
    if (!gaveUp) this.scheduleRestart(launched.process.exited);
  }

  private scheduleRestart(previousExit: Promise<unknown>): void {
    this.attempts += 1;
    const attempt = this.attempts;
    this.later(restartDelayMs(this.settings, attempt), () => {
      this.pendingRestart = this.restart(attempt, previousExit).finally(() => {
        this.pendingRestart = null;
      });
    });
  }

  private async restart(attempt: number, previousExit: Promise<unknown>): Promise<void> {
    await previousExit;
    if (this.state !== 'restarting') return;
    try {
      const launched = await launchPlugin(this.spec, this.env, this.settings.startTimeoutMs, this.logger);
      if (this.state !== 'restarting') {
        await stopPluginProcess(launched.process, launched.connection, this.settings.stopTimings);
        return;
      }
      this.adopt(launched);
      this.logger.info({ pid: this.pid(), restart_count: attempt }, 'plugin restarted');
      this.report('active', null, false);
    } catch (error) {
      if (this.state !== 'restarting') return;
      const reason = (error as Error).message;
      const gaveUp = attempt >= this.settings.maxRestarts;
      this.logger.warn({ reason, restart_count: attempt, gave_up: gaveUp }, 'plugin restart failed');
      if (gaveUp) this.state = 'gave-up';
      this.report('error', reason, gaveUp);
      if (!gaveUp) this.scheduleRestart(Promise.resolve());
    }
  }

  private failCallsInFlight(): void {
    for (const onProcessGone of [...this.inFlight]) onProcessGone();
    this.inFlight.clear();
  }

  private report(status: PluginStatusEvent['status'], reason: string | null, gaveUp: boolean): void {
    this.emit({ instance: this.instance, status, reason, restartCount: this.attempts, gaveUp });
  }

  private later(ms: number, run: () => void | Promise<void>): void {
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      void run();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  private clearTimers(): void {
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
  }
}
