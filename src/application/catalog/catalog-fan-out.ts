import type { CatalogSnapshot } from '../../domain/catalog';
import { catalogDelta } from '../../domain/catalog-delta';
import type { CatalogPublisher, CatalogPush, PushAnswer } from '../ports/catalog-publisher';
import type { Logger } from '../ports/logger';
import { errorMessage } from '../shared/error-code';
import type { CatalogService } from './catalog-service';

export interface CatalogFanOutOptions {
  /** How long one agentctl may take to answer a push. */
  pushTimeoutMs: number;
  /** First retry delay for a target that failed; it doubles up to retryMaxMs. */
  retryInitialMs: number;
  retryMaxMs: number;
  /** Recent snapshots kept to build deltas from; an agentctl further behind gets the full one. */
  history: number;
}

const DEFAULT_FAN_OUT_OPTIONS: CatalogFanOutOptions = { pushTimeoutMs: 2000, retryInitialMs: 100, retryMaxMs: 5000, history: 16 };

/** What a linked agentctl holds, as far as this backend knows. */
interface Held {
  generation: string;
  revision: number;
}

/**
 * Delivers each catalog change to every agentctl linked to this backend, never blocking the
 * writer. Each target gets only what changed since the revision it holds (one delta, serialised
 * once for every target holding that revision), or the full snapshot when it holds something
 * else or answers that the delta does not fit. A burst coalesces: while a round runs, changes
 * only mark it dirty, and one more round with the newest snapshot follows. A target that fails
 * is retried with backoff until it takes the snapshot, a newer one supersedes it, or its link
 * is gone (a reconnecting agentctl pulls the current snapshot itself).
 */
export class CatalogFanOut {
  private readonly options: CatalogFanOutOptions;
  private unsubscribe: (() => void) | undefined;
  private roundRunning = false;
  private dirty = false;
  private pushesInFlight = 0;
  private readonly held = new Map<string, Held>();
  private readonly history = new Map<string, CatalogSnapshot>();
  private readonly retries = new Map<string, { timer: ReturnType<typeof setTimeout>; attempt: number }>();
  private idleWaiters: Array<() => void> = [];

  constructor(
    private readonly catalog: CatalogService,
    private readonly publisher: CatalogPublisher,
    private readonly logger: Logger,
    options: Partial<CatalogFanOutOptions> = {},
  ) {
    this.options = { ...DEFAULT_FAN_OUT_OPTIONS, ...options };
  }

  /** Starts following catalog changes; idempotent. */
  execute(): void {
    this.unsubscribe ??= this.catalog.onChange((snapshot) => this.changed(snapshot));
  }

  /** Stops following changes and drops pending retries (shutdown). */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.dropRetries();
    this.settleIdle();
  }

  /** A linked agentctl was handed `snapshot` (its pull after a hello): that is what it holds now. */
  served(sessionId: string, snapshot: CatalogSnapshot): void {
    this.remember(snapshot);
    this.held.set(sessionId, { generation: snapshot.generation, revision: snapshot.revision });
  }

  /** A session's link closed: nothing more goes to it until it links and pulls again. */
  unlinked(sessionId: string): void {
    this.held.delete(sessionId);
    const retry = this.retries.get(sessionId);
    if (retry) clearTimeout(retry.timer);
    this.retries.delete(sessionId);
    this.settleIdle();
  }

  /** Resolves once no round, push or retry is pending (for tests and orderly shutdown). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private changed(snapshot: CatalogSnapshot): void {
    this.remember(snapshot);
    this.dirty = true;
    if (!this.roundRunning) void this.runRounds();
  }

  private async runRounds(): Promise<void> {
    this.roundRunning = true;
    try {
      while (this.dirty) {
        this.dirty = false;
        // Retries of an older snapshot are superseded: this round reaches every linked target.
        this.dropRetries();
        await this.deliver(this.publisher.linkedSessions(), this.catalog.current(), 0);
      }
    } catch (error) {
      this.logger.error({ err: errorMessage(error) }, 'catalog fan-out round failed');
    } finally {
      this.roundRunning = false;
      this.settleIdle();
    }
  }

  /** Sends `snapshot` to `targets` that do not hold it yet, grouped by what each holds. */
  private async deliver(targets: readonly string[], snapshot: CatalogSnapshot, attempt: number): Promise<void> {
    const groups = new Map<number | 'full', string[]>();
    for (const sessionId of targets) {
      const held = this.held.get(sessionId);
      if (held?.generation === snapshot.generation && held.revision >= snapshot.revision) continue;
      const base = held?.generation === snapshot.generation && this.history.has(this.key(held)) ? held.revision : 'full';
      groups.set(base, [...(groups.get(base) ?? []), sessionId]);
    }
    await Promise.all(
      [...groups].map(([base, sessionIds]) => {
        const delta = base === 'full' ? undefined : catalogDelta(this.history.get(this.key({ generation: snapshot.generation, revision: base }))!, snapshot);
        return this.send(sessionIds, delta ? { delta } : { snapshot }, snapshot, attempt);
      }),
    );
  }

  private async send(sessionIds: readonly string[], push: CatalogPush, snapshot: CatalogSnapshot, attempt: number): Promise<void> {
    this.pushesInFlight += 1;
    try {
      const answers = await this.publisher.push(sessionIds, push, this.options.pushTimeoutMs);
      const wantFull: string[] = [];
      for (const sessionId of sessionIds) {
        const answer = answers.get(sessionId) ?? new Error('no answer');
        if (answer instanceof Error) this.failed(sessionId, snapshot, attempt, answer);
        else if (answer.outcome === 'base_mismatch') wantFull.push(sessionId);
        else this.took(sessionId, snapshot, answer);
      }
      if (wantFull.length > 0 && 'delta' in push) await this.send(wantFull, { snapshot }, snapshot, attempt);
    } finally {
      this.pushesInFlight -= 1;
      this.settleIdle();
    }
  }

  private took(sessionId: string, snapshot: CatalogSnapshot, answer: PushAnswer): void {
    if (!this.publisher.isLinked(sessionId)) return;
    this.held.set(sessionId, { generation: answer.generation, revision: answer.revision });
    this.logger.debug({ session_id: sessionId, revision: snapshot.revision, outcome: answer.outcome }, 'catalog pushed');
  }

  private failed(sessionId: string, snapshot: CatalogSnapshot, attempt: number, error: Error): void {
    this.logger.warn({ session_id: sessionId, revision: snapshot.revision, attempt, reason: errorMessage(error) }, 'catalog push failed');
    if (!this.isNewest(snapshot) || !this.publisher.isLinked(sessionId)) return;
    const retry = this.retries.get(sessionId);
    if (retry) clearTimeout(retry.timer);
    const delay = Math.min(this.options.retryInitialMs * 2 ** attempt, this.options.retryMaxMs);
    const timer = setTimeout(() => {
      this.retries.delete(sessionId);
      const current = this.catalog.current();
      if (this.isNewest(snapshot) && this.publisher.isLinked(sessionId)) void this.deliver([sessionId], current, attempt + 1);
      else this.settleIdle();
    }, delay);
    this.retries.set(sessionId, { timer, attempt });
  }

  private isNewest(snapshot: CatalogSnapshot): boolean {
    const current = this.catalog.current();
    return current.generation === snapshot.generation && current.revision === snapshot.revision;
  }

  /** Keeps the last few snapshots of the generation to build deltas from. */
  private remember(snapshot: CatalogSnapshot): void {
    this.history.set(this.key(snapshot), snapshot);
    for (const key of this.history.keys()) {
      if (this.history.size <= this.options.history) break;
      this.history.delete(key);
    }
  }

  private key(at: Held): string {
    return `${at.generation}/${at.revision}`;
  }

  private dropRetries(): void {
    for (const { timer } of this.retries.values()) clearTimeout(timer);
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
