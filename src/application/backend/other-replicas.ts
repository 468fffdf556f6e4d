import type { ReconcileCopies } from '../replicas/reconcile-copies';
import type { FollowReplicas } from '../replicas/follow-replicas';

/**
 * The other backends on a shared store, as starting and stopping sees them (docs/operations.md
 * §10): this replica's own copies started when it joins live ones, their changes followed,
 * and this replica leaving them. A backend alone has none (`NoOtherReplicas`).
 */
export abstract class OtherReplicas {
  /** Starts this replica's copies of what the live ones serve, writing no record. */
  abstract startOwnCopies(): Promise<void>;
  /** Follows the others' changes from now on. */
  abstract follow(): Promise<void>;
  /** Stops following and deregisters this replica, so those staying see it gone. */
  abstract leave(): Promise<void>;
}

/** The null object: a backend alone on its store has no other replica to join, follow or leave. */
export class NoOtherReplicas extends OtherReplicas {
  async startOwnCopies(): Promise<void> {}
  async follow(): Promise<void> {}
  async leave(): Promise<void> {}
}

/** A replica on a shared store: its copies reconciled with the records, the change feed followed. */
export class SharedStoreReplicas extends OtherReplicas {
  constructor(
    private readonly copies: ReconcileCopies,
    private readonly following: FollowReplicas,
  ) {
    super();
  }

  startOwnCopies(): Promise<void> {
    return this.copies.execute();
  }

  follow(): Promise<void> {
    return this.following.execute();
  }

  leave(): Promise<void> {
    return this.following.leave();
  }
}
