import type { ApprovalRequests } from '../ports/approval-requests';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';
import type { Settings } from '../settings';
import { errorMessage } from '../shared/error-code';

/** The longest time between two passes of the retention bounds. */
const MAX_PASS_INTERVAL_MS = 5 * 60 * 1000;

/**
 * Removes stopped sessions, so they do not pile up (docs/catalog-and-sessions.md §5). Asked
 * (`session prune`), it removes stopped sessions only: a `dead` one may become `live` again
 * when its agentctl links. The backend also applies the retention bounds at start and then
 * every few minutes: stopped and dead sessions last updated longer ago than
 * `sessionRetentionMs`, then the oldest stopped ones past `sessionRetentionMax`. A starting or
 * live session is never removed. The same passes remove the approval requests decided, expired
 * or withdrawn whose expiry is older than `approvalRetentionMs` (docs/approvals.md); a pending
 * one is never removed.
 */
export class PruneSessions {
  private timer: ReturnType<typeof setInterval> | undefined;
  private readonly pending = new Set<Promise<unknown>>();
  private disposed = false;

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly settings: Pick<Settings, 'sessionRetentionMs' | 'sessionRetentionMax'> & Partial<Pick<Settings, 'approvalRetentionMs'>>,
    private readonly logger: Logger,
    private readonly approvals?: ApprovalRequests,
  ) {}

  /** Removes every stopped session, or only those stopped more than `olderThanMs` ago; answers how many. */
  execute(olderThanMs?: number): Promise<number> {
    const updatedBefore = olderThanMs === undefined ? undefined : this.instantAgo(olderThanMs);
    return this.track(this.store.deleteSessions({ statuses: ['stopped'], updatedBefore }));
  }

  /** One pass of the retention bounds; answers how many sessions it removed. */
  async enforce(): Promise<number> {
    const aged = await this.track(
      this.store.deleteSessions({ statuses: ['stopped', 'dead'], updatedBefore: this.instantAgo(this.settings.sessionRetentionMs) }),
    );
    const surplus = await this.track(this.store.deleteSessions({ statuses: ['stopped'], keepNewest: this.settings.sessionRetentionMax }));
    return aged + surplus;
  }

  /** One pass over the approval requests; answers how many it removed (none without a store of them). */
  async enforceApprovals(): Promise<number> {
    const retention = this.settings.approvalRetentionMs;
    if (!this.approvals || retention === undefined) return 0;
    return this.track(this.approvals.deleteSettledApprovals(this.instantAgo(retention)));
  }

  /** Applies the bounds once now, then periodically on a timer that never keeps the process alive. */
  async start(): Promise<void> {
    await this.pass();
    if (this.disposed || this.timer) return;
    const shortest = Math.min(this.settings.sessionRetentionMs, this.settings.approvalRetentionMs ?? MAX_PASS_INTERVAL_MS, MAX_PASS_INTERVAL_MS);
    this.timer = setInterval(() => void this.pass(), shortest);
    this.timer.unref();
  }

  /** Stops the passes and waits for one in flight, so nothing touches the store after it closes. */
  async dispose(): Promise<void> {
    this.disposed = true;
    clearInterval(this.timer);
    this.timer = undefined;
    await Promise.allSettled([...this.pending]);
  }

  private async pass(): Promise<void> {
    if (this.disposed) return;
    try {
      const removed = await this.enforce();
      if (removed > 0) this.logger.info({ removed }, 'sessions past retention removed');
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'removing sessions past retention failed');
    }
    try {
      const removed = await this.enforceApprovals();
      if (removed > 0) this.logger.info({ removed }, 'approval requests past retention removed');
    } catch (error) {
      this.logger.warn({ err: errorMessage(error) }, 'removing approval requests past retention failed');
    }
  }

  private instantAgo(ms: number): string {
    return new Date(this.clock.now() - ms).toISOString();
  }

  private track<T>(work: Promise<T>): Promise<T> {
    this.pending.add(work);
    void work.then(
      () => this.pending.delete(work),
      () => this.pending.delete(work),
    );
    return work;
  }
}
