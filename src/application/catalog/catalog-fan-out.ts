import type { CatalogSnapshot } from '../../domain/catalog';
import type { SessionRecord } from '../../domain/session';
import type { CatalogPublisher, PushTarget } from '../ports/catalog-publisher';
import type { Logger } from '../ports/logger';
import type { PluginStore } from '../ports/plugin-store';
import { errorMessage } from '../shared/error-code';
import type { CatalogService } from './catalog-service';

export interface CatalogFanOutOptions {
  /** Pushes in flight at once. */
  concurrency: number;
  /** How long one agentctl may take to answer a push. */
  pushTimeoutMs: number;
  /** First retry delay for a target that failed; it doubles up to retryMaxMs. */
  retryInitialMs: number;
  retryMaxMs: number;
}

const DEFAULT_FAN_OUT_OPTIONS: CatalogFanOutOptions = { concurrency: 16, pushTimeoutMs: 2000, retryInitialMs: 100, retryMaxMs: 5000 };

/**
 * Delivers each catalog change to every live session's agentctl, never blocking the writer.
 * A burst coalesces: while a round runs, changes only mark it dirty, and one more round with
 * the newest snapshot follows. A target that fails is retried with backoff until it takes
 * the snapshot, a newer snapshot supersedes it, or its session is no longer live.
 */
export class CatalogFanOut {
  private readonly options: CatalogFanOutOptions;
  private unsubscribe: (() => void) | undefined;
  private roundRunning = false;
  private dirty = false;
  private pushesInFlight = 0;
  private readonly retries = new Map<string, NodeJS.Timeout>();
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly catalog: CatalogService,
    private readonly store: PluginStore,
    private readonly publisher: CatalogPublisher,
    private readonly logger: Logger,
    options: Partial<CatalogFanOutOptions> = {},
  ) {
    this.options = { ...DEFAULT_FAN_OUT_OPTIONS, ...options };
  }

  /** Starts following catalog changes; idempotent. */
  execute(): void {
    this.unsubscribe ??= this.catalog.onChange(() => this.changed());
  }

  /** Stops following changes and drops pending retries (shutdown). */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.dropRetries();
    this.settleIdle();
  }

  /** Resolves once no round, push or retry is pending (for tests and orderly shutdown). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private changed(): void {
    this.dirty = true;
    if (!this.roundRunning) void this.runRounds();
  }

  private async runRounds(): Promise<void> {
    this.roundRunning = true;
    try {
      while (this.dirty) {
        this.dirty = false;
        // Retries of an older snapshot are superseded: this round reaches every live target.
        this.dropRetries();
        await this.round(this.catalog.current());
      }
    } catch (error) {
      // The store failed (or closed at shutdown): this round is lost, the next change starts another.
      this.logger.error({ err: errorMessage(error) }, 'catalog fan-out round failed');
    } finally {
      this.roundRunning = false;
      this.settleIdle();
    }
  }

  private async round(snapshot: CatalogSnapshot): Promise<void> {
    const targets = await this.liveTargets();
    let next = 0;
    const worker = async (): Promise<void> => {
      while (next < targets.length) await this.attempt(targets[next++]!, snapshot, 0);
    };
    await Promise.all(Array.from({ length: Math.min(this.options.concurrency, targets.length) }, worker));
  }

  private async attempt(target: PushTarget, snapshot: CatalogSnapshot, attempt: number): Promise<void> {
    this.pushesInFlight += 1;
    try {
      const outcome = await this.publisher.push(target, snapshot, this.options.pushTimeoutMs);
      this.logger.debug({ session_id: target.sessionId, revision: snapshot.revision, outcome }, 'catalog pushed');
    } catch (error) {
      this.logger.warn({ session_id: target.sessionId, revision: snapshot.revision, attempt, reason: errorMessage(error) }, 'catalog push failed');
      if (this.isNewest(snapshot)) this.scheduleRetry(target.sessionId, snapshot, attempt);
    } finally {
      this.pushesInFlight -= 1;
      this.settleIdle();
    }
  }

  private scheduleRetry(sessionId: string, snapshot: CatalogSnapshot, attempt: number): void {
    clearTimeout(this.retries.get(sessionId));
    const delay = Math.min(this.options.retryInitialMs * 2 ** attempt, this.options.retryMaxMs);
    const timer = setTimeout(() => {
      this.retries.delete(sessionId);
      void this.targetOf(sessionId).then(
        (target) => (target && this.isNewest(snapshot) ? this.attempt(target, snapshot, attempt + 1) : this.settleIdle()),
        () => this.settleIdle(),
      );
    }, delay);
    this.retries.set(sessionId, timer);
  }

  private isNewest(snapshot: CatalogSnapshot): boolean {
    const current = this.catalog.current();
    return current.generation === snapshot.generation && current.revision === snapshot.revision;
  }

  private async liveTargets(): Promise<PushTarget[]> {
    return (await this.store.listSessions()).flatMap((session) => pushTargetOf(session) ?? []);
  }

  private async targetOf(sessionId: string): Promise<PushTarget | undefined> {
    const session = await this.store.getSession(sessionId);
    return session && pushTargetOf(session);
  }

  private dropRetries(): void {
    for (const timer of this.retries.values()) clearTimeout(timer);
    this.retries.clear();
  }

  private isIdle(): boolean {
    return !this.roundRunning && !this.dirty && this.pushesInFlight === 0 && this.retries.size === 0;
  }

  private settleIdle(): void {
    if (!this.isIdle()) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }
}

/** The session's push target while it is live with a control API, else undefined. */
function pushTargetOf(session: SessionRecord): PushTarget | undefined {
  if (session.status !== 'live' || !session.control_url || !session.control_token) return undefined;
  return { sessionId: session.session_id, controlUrl: session.control_url, controlToken: session.control_token };
}
