import type { CatalogService } from '../catalog/catalog-service';
import type { Logger } from '../ports/logger';
import { ReplicaRoster } from '../ports/replica-roster';
import type { StoreChanges } from '../ports/store-changes';
import type { ReconcileSessions } from '../sessions/reconcile-sessions';
import type { ReconcileCopies } from './reconcile-copies';
import type { BackendUrl } from '../sessions/backend-url';
import { errorMessage } from '../shared/error-code';

/**
 * Keeps one replica in step with the others (docs/operations.md §10). A change another replica committed
 * (heard from the store's change feed, or read again after the feed was lost) makes this one
 * carry it out on its own copies and take the stored catalog, which the fan-out then pushes to
 * the agentctls linked here. Every second it heartbeats, forgets replicas gone silent (their
 * copies stop counting, with the catalog change that may cause) and learns the live replicas'
 * URLs for the agentctls it launches. The agentctls a replica followed are adopted when it
 * leaves the live ones (it died, or stopped leaving them running), and at start those of every
 * replica that is not live, so a session's agentctl exit is always noticed by some replica.
 */
export class FollowReplicas {
  private unsubscribe: (() => void) | undefined;
  private timer: ReturnType<typeof setInterval> | undefined;
  private rounds: Promise<void> = Promise.resolve();
  private pending = false;
  private beating = false;
  private storeDown = false;
  /** Silent replicas are forgotten only from then on (after this replica lost the store itself). */
  private forgetFrom = 0;
  /** The other replicas live at the last heartbeat; one that leaves them has its agentctls adopted. */
  private peers = new Set<string>();

  constructor(
    private readonly roster: ReplicaRoster,
    private readonly changes: StoreChanges,
    private readonly reconcile: ReconcileCopies,
    private readonly catalog: CatalogService,
    private readonly url: BackendUrl,
    private readonly logger: Logger,
    /** Takes over the sessions whose agentctl a replica that is gone followed (docs/operations.md §10). */
    private readonly sessions: ReconcileSessions,
  ) {}

  /** Starts following; resolves once the change feed listens and the peers are known. */
  async execute(): Promise<void> {
    this.unsubscribe ??= this.changes.onChange(() => this.changed());
    await this.changes.start();
    await this.beat();
    await this.adopt((follower) => follower !== null && !this.peers.has(follower));
    this.timer ??= setInterval(() => void this.beat(), ReplicaRoster.HEARTBEAT_MS);
    this.timer.unref?.();
  }

  /** Resolves once every change heard so far is carried out (for tests). */
  settled(): Promise<void> {
    return this.rounds;
  }

  /** Stops following (shutdown, before the plugins stop); resolves once a round under way is done. */
  async dispose(): Promise<void> {
    this.stop();
    await this.rounds;
  }

  /** A clean stop, once its plugins are stopped: this replica deregisters with its copies. */
  async leave(): Promise<void> {
    await this.dispose();
    await this.catalog
      .commit(async (tx) => this.roster.copiesIn(tx).forget([this.roster.replicaId]))
      .catch((error: unknown) =>
        this.logger.warn({ reason: errorMessage(error) }, 'could not deregister this replica; it counts as gone once its heartbeat is old'),
      );
    await this.changes.close();
  }

  private stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Coalesces a burst: at most one round runs and one more waits. */
  private changed(): void {
    if (this.pending) return;
    this.pending = true;
    this.rounds = this.rounds.then(async () => {
      this.pending = false;
      try {
        await this.reconcile.execute();
        await this.catalog.recompute();
      } catch (error) {
        this.logger.error({ reason: errorMessage(error) }, 'could not follow a change made through another replica');
      }
    });
  }

  /** Follows the sessions `orphaned` picks by the replica they name; a failure waits for the next replica to go. */
  private async adopt(orphaned: (follower: string | null) => boolean): Promise<void> {
    try {
      const taken = await this.sessions.execute((session) => orphaned(session.agentctl_replica));
      if (taken > 0) this.logger.info({ sessions: taken }, 'adopted the agentctls of replicas that are gone');
    } catch (error) {
      this.logger.warn({ reason: errorMessage(error) }, 'could not adopt the agentctls of replicas that are gone');
    }
  }

  private async beat(): Promise<void> {
    if (this.beating) return;
    this.beating = true;
    try {
      const { silent, rejoined } = await this.roster.heartbeat();
      if (this.storeDown) {
        // Every replica was cut off too: give them a full period to beat again before any counts as gone.
        this.forgetFrom = Date.now() + ReplicaRoster.GONE_AFTER_MS;
      }
      if (silent.length > 0 && Date.now() >= this.forgetFrom) {
        await this.catalog.commit(async (tx) => this.roster.copiesIn(tx).forget(silent));
        this.logger.warn({ replicas: silent }, 'replicas gone silent are forgotten');
      }
      if (rejoined) {
        this.logger.warn({}, 'this replica had been counted gone; registered again');
        await this.reconcile.resave();
        this.changed();
      }
      const self = this.roster.replicaId;
      const others = (await this.roster.live()).filter((member) => member.id !== self);
      this.url.setPeers(others.map((member) => member.url));
      const live = new Set(others.map((member) => member.id));
      // Right after the store came back every heartbeat looks old: a peer counts as gone only once it had a full period to beat.
      if (Date.now() >= this.forgetFrom) {
        const gone = [...this.peers].filter((id) => !live.has(id));
        this.peers = live;
        if (gone.length > 0) await this.adopt((follower) => follower !== null && gone.includes(follower));
      }
      if (this.storeDown) this.logger.info({}, 'the store is reachable again');
      this.storeDown = false;
    } catch (error) {
      if (!this.storeDown) this.logger.warn({ reason: errorMessage(error) }, 'heartbeat failed: the store is unreachable');
      this.storeDown = true;
    } finally {
      this.beating = false;
    }
  }
}
