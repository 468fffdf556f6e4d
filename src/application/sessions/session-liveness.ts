import type { SessionRecord } from '../../domain/session';
import type { Clock } from '../ports/clock';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';
import { errorMessage } from '../shared/error-code';

export interface AgentctlExit {
  code: number | null;
  signal: string | null;
}

/**
 * Whether each session's agentctl is still there (docs/agentctl.md). A session is `dead` once its
 * link has been down for the grace period, at once after a goodbye, or when the agentctl the
 * backend launched exits without being stopped; it is `live` again when its agentctl links
 * again. dispose() (shutdown) stops it all, so nothing acts on the store after it closed.
 */
export class SessionLiveness {
  private disposed = false;
  private readonly pending = new Set<Promise<void>>();
  private readonly graceTimers = new Map<string, ReturnType<typeof setTimeout>>();
  /** Sessions whose agentctl's exit this process waits for. */
  private readonly followed = new Set<string>();

  constructor(
    private readonly store: SessionStore,
    private readonly clock: Clock,
    private readonly graceMs: number,
    private readonly logger: Logger,
  ) {}

  /** The session's agentctl linked: it is live, and no grace period runs for it. */
  linkUp(sessionId: string): void {
    clearTimeout(this.graceTimers.get(sessionId));
    this.graceTimers.delete(sessionId);
  }

  /** The session's link dropped: it is dead unless its agentctl links again within the grace period. */
  linkDown(sessionId: string): void {
    this.track(async () => {
      const session = await this.store.getSession(sessionId);
      if (!session || session.status !== 'live') return;
      const since = this.clock.isoNow();
      await this.store.saveSession({ ...session, link_down_since: since, updated_at: since });
      this.startGrace(sessionId, since, this.graceMs);
    });
  }

  /** The agentctl said goodbye (a clean exit): its session is dead now. */
  goodbye(sessionId: string): Promise<void> {
    this.linkUp(sessionId);
    return this.markDead(sessionId, 'said goodbye', () => true);
  }

  /** Marks the session dead once `exited` resolves, unless it was stopped or liveness disposed. */
  follow(sessionId: string, exited: Promise<AgentctlExit>): void {
    this.followed.add(sessionId);
    void exited.then((exit) => {
      this.followed.delete(sessionId);
      if (!this.disposed) this.track(() => this.markDead(sessionId, `agentctl exited (code ${exit.code}, signal ${exit.signal})`, () => true));
    });
  }

  /** Whether this process already waits on the session: for its agentctl's exit, or for its link at the end of a grace period. */
  follows(sessionId: string): boolean {
    return this.followed.has(sessionId) || this.graceTimers.has(sessionId);
  }

  /** Marks a session whose launched agentctl is gone dead now (found gone at startup). */
  markGone(sessionId: string): Promise<void> {
    return this.markDead(sessionId, 'its agentctl is gone', () => true);
  }

  /**
   * At startup: a session served by an agentctl started elsewhere has no link to this new
   * backend yet; it gets the rest of its grace period (all of it, if its link was up when the
   * previous backend went) to link again.
   */
  async awaitRelink(session: SessionRecord): Promise<void> {
    if (session.status !== 'live') return;
    let since = session.link_down_since;
    if (since === null) {
      since = this.clock.isoNow();
      await this.store.saveSession({ ...session, link_down_since: since, updated_at: since });
    }
    this.startGrace(session.session_id, since, this.graceMs - (this.clock.now() - Date.parse(since)));
  }

  /** Stops every timer and follow-up; resolves once markings already under way are stored. */
  async dispose(): Promise<void> {
    this.disposed = true;
    for (const timer of this.graceTimers.values()) clearTimeout(timer);
    this.graceTimers.clear();
    await Promise.all([...this.pending]);
  }

  private startGrace(sessionId: string, since: string, delayMs: number): void {
    clearTimeout(this.graceTimers.get(sessionId));
    const timer = setTimeout(
      () => {
        this.graceTimers.delete(sessionId);
        // Dead only if its link is still the one that went down then (it may have come back).
        this.track(() => this.markDead(sessionId, `its link stayed down for ${this.graceMs} ms`, (s) => s.link_down_since === since));
      },
      Math.max(0, delayMs),
    );
    (timer as { unref?: () => void }).unref?.();
    this.graceTimers.set(sessionId, timer);
  }

  private track(work: () => Promise<void>): void {
    if (this.disposed) return;
    const running = work().catch((error: unknown) => this.logger.error({ err: errorMessage(error) }, 'could not record a session’s liveness'));
    this.pending.add(running);
    void running.finally(() => this.pending.delete(running));
  }

  private async markDead(sessionId: string, reason: string, stillSo: (session: SessionRecord) => boolean): Promise<void> {
    const session = await this.store.getSession(sessionId);
    if (!session || (session.status !== 'live' && session.status !== 'starting') || !stillSo(session)) return;
    await this.store.saveSession({ ...session, status: 'dead', updated_at: this.clock.isoNow() });
    this.logger.warn({ session_id: sessionId, reason }, 'session dead');
  }
}
