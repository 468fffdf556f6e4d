import { markedTools } from '../../domain/approvals';
import type { CatalogSnapshot } from '../../domain/catalog';
import { viewKey, type CatalogPolicy, type ScopeView } from '../../domain/scopes';
import type { CatalogPublisher, CatalogPush, PushAnswer } from '../ports/catalog-publisher';
import type { Logger } from '../ports/logger';
import { errorMessage } from '../shared/error-code';
import type { CatalogService } from './catalog-service';
import { ViewHistory, type ViewAt } from './view-history';

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

/** A linked session's view and its viewKey, computed once per link rather than once per push. */
interface Linked {
  view: ScopeView;
  key: string;
}

/** What a linked agentctl holds, as far as this backend knows (never mutated: targets may share one). */
interface Held {
  readonly generation: string;
  readonly revision: number;
  /** The hash of the view's tools at that revision (ViewAt.hash); undefined when unknown. */
  readonly hash: string | undefined;
}

/** A pending retry of the targets that failed in one push. */
interface Retry {
  timer: ReturnType<typeof setTimeout>;
  sessionIds: Set<string>;
}

/** The targets of one push: one view, one held revision to build on. */
interface Group {
  linked: Linked;
  now: ViewAt;
  base: number | 'full';
  sessionIds: string[];
}

/**
 * Delivers each catalog change to every agentctl linked to this backend whose tools it changes,
 * never blocking the writer. A session sees its view (surface, workspace, profile) of the
 * catalog (docs/catalog-and-sessions.md, "Scopes"); a round computes each view's tools once,
 * and a session whose view's tools are what it holds gets nothing and keeps its older revision.
 * Every other target gets only what changed in its view since the revision it holds (one delta
 * per view and held revision, serialised once for every target sharing both), or its view's
 * full snapshot when it holds something else or answers that the delta does not fit. A burst coalesces: while a round runs, changes
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
  /** Each linked session's view, known from its hello or its pull, with its key (viewKey). */
  private readonly views = new Map<string, Linked>();
  private readonly history: ViewHistory;
  /** Each failed target's pending retry; the targets that failed in one push share one. */
  private readonly retries = new Map<string, Retry>();
  private idleWaiters: Array<() => void> = [];
  private unsubscribeRules: (() => void) | undefined;
  /** Per linked session, the approval marks last sent to it (docs/approvals.md, "Marked tools"), joined. */
  private readonly marksSent = new Map<string, string>();

  constructor(
    private readonly catalog: CatalogService,
    private readonly publisher: CatalogPublisher,
    private readonly logger: Logger,
    options: Partial<CatalogFanOutOptions> = {},
  ) {
    this.options = { ...DEFAULT_FAN_OUT_OPTIONS, ...options };
    this.history = new ViewHistory(this.options.history);
  }

  /** Starts following catalog changes; idempotent. */
  execute(): void {
    this.unsubscribe ??= this.catalog.onChange((snapshot, policy) => this.changed(snapshot, policy));
    this.unsubscribeRules ??= this.catalog.onRulesChange(() => this.sendMarks(this.views.keys()));
  }

  /** Stops following changes and drops pending retries (shutdown). */
  dispose(): void {
    this.unsubscribe?.();
    this.unsubscribe = undefined;
    this.unsubscribeRules?.();
    this.unsubscribeRules = undefined;
    this.dropRetries();
    this.settleIdle();
  }

  /**
   * A session's agentctl said hello on a link to this backend: changes reach it from now on (in
   * full until it pulls, as nothing is known of what it holds).
   */
  linked(sessionId: string, view: ScopeView): void {
    this.views.set(sessionId, { view, key: viewKey(view) });
  }

  /**
   * A linked agentctl's pull (after each hello): answers the current catalog as its view sees
   * it, which is what it holds from now on.
   */
  serve(sessionId: string, view: ScopeView): CatalogSnapshot {
    const current = this.catalog.current();
    this.history.remember(current, this.catalog.policy());
    const served = this.history.view(current.generation, current.revision, view)!;
    this.views.set(sessionId, { view, key: viewKey(view) });
    this.held.set(sessionId, { generation: current.generation, revision: current.revision, hash: served.hash });
    // A new link: its agentctl is told its marks whatever it was told before.
    this.marksSent.delete(sessionId);
    this.sendMarks([sessionId]);
    return served.snapshot;
  }

  /** A session's link closed: nothing more goes to it until it links and pulls again. */
  unlinked(sessionId: string): void {
    this.held.delete(sessionId);
    this.views.delete(sessionId);
    this.marksSent.delete(sessionId);
    this.cancelRetry(sessionId);
    this.settleIdle();
  }

  /** Resolves once no round, push or retry is pending (for tests and orderly shutdown). */
  whenIdle(): Promise<void> {
    if (this.isIdle()) return Promise.resolve();
    return new Promise((resolve) => this.idleWaiters.push(resolve));
  }

  private changed(snapshot: CatalogSnapshot, policy: CatalogPolicy): void {
    this.history.remember(snapshot, policy);
    this.dirty = true;
    if (!this.roundRunning) void this.runRounds();
    this.sendMarks(this.views.keys());
  }

  /**
   * Sends `approval.marks` to those of `sessionIds` (linked ones) whose marked tools, in their
   * view of the current catalog under the current rules, differ from what was last sent to them
   * (docs/approvals.md, "Marked tools"); each view's set is computed once. Marks only shape
   * answers, so nothing waits for or retries them.
   */
  private sendMarks(sessionIds: Iterable<string>): void {
    const current = this.catalog.current();
    this.history.remember(current, this.catalog.policy());
    const rules = this.catalog.approvalRules();
    const perView = new Map<string, string[]>();
    const changed = new Map<string, string[]>();
    for (const sessionId of sessionIds) {
      const linked = this.views.get(sessionId);
      if (!linked) continue;
      let marked = perView.get(linked.key);
      if (!marked) {
        const tools = this.history.view(current.generation, current.revision, linked.view)?.snapshot.tools ?? [];
        const subjects = tools.map((tool) => ({ exposed_name: tool.exposed_name, plugin_id: tool.plugin_id, destructive: tool.annotations.destructive_hint }));
        marked = markedTools(rules, { workspace_id: linked.view.workspace, profile: linked.view.profile }, subjects);
        perView.set(linked.key, marked);
      }
      const text = marked.join('\n');
      if (this.marksSent.get(sessionId) === text) continue;
      this.marksSent.set(sessionId, text);
      changed.set(sessionId, marked);
    }
    if (changed.size > 0) void this.publisher.sendMarks(changed, this.options.pushTimeoutMs);
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

  /**
   * Sends `snapshot` to `targets` whose view's tools differ from what they hold, grouped by
   * view and held revision. Per target this is map look-ups only: each view's tools at this
   * revision are looked up once per view key, not once per session.
   */
  private async deliver(targets: readonly string[], snapshot: CatalogSnapshot, attempt: number): Promise<void> {
    this.history.remember(snapshot, this.catalog.policy());
    const { generation, revision } = snapshot;
    const nowByView = new Map<string, ViewAt>();
    const groups = new Map<string, Map<number | 'full', Group>>();
    for (const sessionId of targets) {
      const linked = this.views.get(sessionId);
      if (!linked) continue;
      const held = this.held.get(sessionId);
      const sameGeneration = held?.generation === generation;
      if (sameGeneration && held.revision >= revision) continue;
      let now = nowByView.get(linked.key);
      if (!now) {
        now = this.history.view(generation, revision, linked.view)!;
        nowByView.set(linked.key, now);
      }
      // Its tools did not change: it hears nothing, and the next change is a delta on what it holds.
      if (sameGeneration && held.hash === now.hash) continue;
      const base = sameGeneration && this.history.has(generation, held.revision) ? held.revision : 'full';
      let byBase = groups.get(linked.key);
      if (!byBase) groups.set(linked.key, (byBase = new Map()));
      const group = byBase.get(base);
      if (group) group.sessionIds.push(sessionId);
      else byBase.set(base, { linked, now, base, sessionIds: [sessionId] });
    }
    await Promise.all(
      [...groups.values()].flatMap((byBase) =>
        [...byBase.values()].map((group) => {
          const delta = group.base === 'full' ? undefined : this.history.delta(group.linked.view, group.base, snapshot);
          return this.send(group.sessionIds, delta ? { delta } : { snapshot: group.now.snapshot }, snapshot, group, attempt);
        }),
      ),
    );
  }

  private async send(sessionIds: readonly string[], push: CatalogPush, snapshot: CatalogSnapshot, group: Group, attempt: number): Promise<void> {
    this.pushesInFlight += 1;
    try {
      const answers = await this.publisher.push(sessionIds, push, this.options.pushTimeoutMs);
      const wantFull: string[] = [];
      const failed: string[] = [];
      // What a target that took this very revision in the group's view holds: one object for all of them.
      const tookSent: Held = { generation: snapshot.generation, revision: snapshot.revision, hash: group.now.hash };
      for (const sessionId of sessionIds) {
        const answer = answers.get(sessionId) ?? new Error('no answer');
        if (answer instanceof Error) {
          this.logger.warn({ session_id: sessionId, revision: snapshot.revision, attempt, reason: errorMessage(answer) }, 'catalog push failed');
          failed.push(sessionId);
        } else if (answer.outcome === 'base_mismatch') wantFull.push(sessionId);
        else this.took(sessionId, snapshot, answer, group.linked.key, tookSent);
      }
      if (failed.length > 0) this.retryLater(failed, snapshot, attempt);
      if (wantFull.length > 0 && 'delta' in push) await this.send(wantFull, { snapshot: group.now.snapshot }, snapshot, group, attempt);
    } finally {
      this.pushesInFlight -= 1;
      this.settleIdle();
    }
  }

  private took(sessionId: string, snapshot: CatalogSnapshot, answer: PushAnswer, sentKey: string, tookSent: Held): void {
    const linked = this.views.get(sessionId);
    if (!this.publisher.isLinked(sessionId) || !linked) return;
    // What it says it holds, which may be another revision than the one sent (a pull raced the push).
    const asSent = linked.key === sentKey && answer.generation === tookSent.generation && answer.revision === tookSent.revision;
    const hash = asSent ? undefined : this.history.view(answer.generation, answer.revision, linked.view)?.hash;
    this.held.set(sessionId, asSent ? tookSent : { generation: answer.generation, revision: answer.revision, hash });
    this.logger.debug({ session_id: sessionId, revision: snapshot.revision, outcome: answer.outcome }, 'catalog pushed');
  }

  /**
   * Retries the targets that failed in one push with backoff, together: one timer and one
   * delivery for all of them (at 10,000 links a push that times out everywhere would otherwise
   * be retried as 10,000 pushes of one target each).
   */
  private retryLater(sessionIds: readonly string[], snapshot: CatalogSnapshot, attempt: number): void {
    if (!this.isNewest(snapshot)) return;
    const due = new Set<string>();
    for (const sessionId of sessionIds) {
      if (!this.publisher.isLinked(sessionId)) continue;
      this.cancelRetry(sessionId);
      due.add(sessionId);
    }
    if (due.size === 0) return;
    const delay = Math.min(this.options.retryInitialMs * 2 ** attempt, this.options.retryMaxMs);
    const timer = setTimeout(() => {
      for (const sessionId of due) this.retries.delete(sessionId);
      const targets = [...due].filter((sessionId) => this.publisher.isLinked(sessionId));
      if (this.isNewest(snapshot) && targets.length > 0) void this.deliver(targets, this.catalog.current(), attempt + 1);
      else this.settleIdle();
    }, delay);
    const retry: Retry = { timer, sessionIds: due };
    for (const sessionId of due) this.retries.set(sessionId, retry);
  }

  /** Drops `sessionId`'s pending retry; the timer goes once no target is left on it. */
  private cancelRetry(sessionId: string): void {
    const retry = this.retries.get(sessionId);
    if (!retry) return;
    this.retries.delete(sessionId);
    retry.sessionIds.delete(sessionId);
    if (retry.sessionIds.size === 0) clearTimeout(retry.timer);
  }

  private isNewest(snapshot: CatalogSnapshot): boolean {
    const current = this.catalog.current();
    return current.generation === snapshot.generation && current.revision === snapshot.revision;
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
