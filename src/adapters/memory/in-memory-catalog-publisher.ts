import { CatalogPublisher, type CatalogPush, type PushAnswer } from '../../application/ports/catalog-publisher';
import type { CatalogSnapshot } from '../../domain/catalog';

/** How a linked fake agentctl answers one push; the default takes every push as `applied`. */
export type PushHandler = (sessionId: string, push: CatalogPush) => PushAnswer | Promise<PushAnswer>;

/**
 * A CatalogPublisher whose links are sessions a test links and unlinks; it records every push
 * and answers as each session's handler says (by default: `applied`, at the revision pushed).
 */
export class InMemoryCatalogPublisher extends CatalogPublisher {
  /** Every push to one session, in order, failed ones included. */
  readonly attempts: Array<{ sessionId: string; push: CatalogPush; ok: boolean }> = [];
  /** Every call of push(), with the sessions it named: what was serialised once for them. */
  readonly rounds: Array<{ sessionIds: string[]; push: CatalogPush }> = [];
  private readonly links = new Set<string>();
  private readonly handlers = new Map<string, PushHandler>();
  private readonly failuresLeft = new Map<string, number>();
  /** Per session, the pushes waiting on its answer: told when its link goes. */
  private readonly waiting = new Map<string, Set<() => void>>();

  link(sessionId: string): void {
    this.links.add(sessionId);
  }

  /** The session's link drops: pushes waiting on its answer end with an Error at once, as on a real link. */
  unlink(sessionId: string): void {
    this.links.delete(sessionId);
    for (const drop of [...(this.waiting.get(sessionId) ?? [])]) drop();
  }

  /** Every approval.marks sent to a linked session, in order. */
  readonly marks: Array<{ sessionId: string; tools: readonly string[] }> = [];

  sendMarks(marks: ReadonlyMap<string, readonly string[]>): Promise<void> {
    for (const [sessionId, tools] of marks) if (this.links.has(sessionId)) this.marks.push({ sessionId, tools });
    return Promise.resolve();
  }

  linkedSessions(): string[] {
    return [...this.links];
  }

  isLinked(sessionId: string): boolean {
    return this.links.has(sessionId);
  }

  /** Revisions a session took, in order (from full snapshots and deltas alike). */
  delivered(sessionId: string): number[] {
    return this.attempts.filter((a) => a.ok && a.sessionId === sessionId).map((a) => revisionOf(a.push));
  }

  /** Makes the next `times` pushes to `sessionId` fail (Infinity: until told otherwise). */
  failNext(sessionId: string, times: number): void {
    this.failuresLeft.set(sessionId, times);
  }

  /** Answers pushes to `sessionId` with `handler`. */
  handle(sessionId: string, handler: PushHandler): void {
    this.handlers.set(sessionId, handler);
  }

  async push(sessionIds: readonly string[], push: CatalogPush, timeoutMs: number): Promise<Map<string, PushAnswer | Error>> {
    this.rounds.push({ sessionIds: [...sessionIds], push });
    const answers = await Promise.all(sessionIds.map(async (sessionId) => [sessionId, await this.answer(sessionId, push, timeoutMs)] as const));
    return new Map(answers);
  }

  private async answer(sessionId: string, push: CatalogPush, timeoutMs: number): Promise<PushAnswer | Error> {
    const left = this.failuresLeft.get(sessionId) ?? 0;
    if (!this.links.has(sessionId) || left > 0) {
      if (left > 0) this.failuresLeft.set(sessionId, left - 1);
      this.attempts.push({ sessionId, push, ok: false });
      return new Error(`agentctl of session ${sessionId} is unreachable`);
    }
    try {
      const handler = this.handlers.get(sessionId);
      const answer = handler ? await this.waitFor(sessionId, handler(sessionId, push), timeoutMs) : applied(push);
      this.attempts.push({ sessionId, push, ok: answer.outcome !== 'base_mismatch' });
      return answer;
    } catch (error) {
      this.attempts.push({ sessionId, push, ok: false });
      return error instanceof Error ? error : new Error(String(error));
    }
  }

  /** The handler's answer, unless `timeoutMs` pass first or the session's link drops (both rejections). */
  private waitFor(sessionId: string, answer: PushAnswer | Promise<PushAnswer>, timeoutMs: number): Promise<PushAnswer> {
    if (!(answer instanceof Promise)) return Promise.resolve(answer);
    // The handler itself may have dropped the link (an agentctl going away mid-push).
    if (!this.links.has(sessionId)) {
      answer.catch(() => undefined);
      return Promise.reject(new Error('the link closed'));
    }
    return new Promise((resolve, reject) => {
      const waiters = this.waiting.get(sessionId) ?? new Set<() => void>();
      this.waiting.set(sessionId, waiters);
      const done = (): void => {
        clearTimeout(timer);
        waiters.delete(dropped);
        if (waiters.size === 0 && this.waiting.get(sessionId) === waiters) this.waiting.delete(sessionId);
      };
      const dropped = (): void => {
        done();
        reject(new Error('the link closed'));
      };
      const timer = setTimeout(() => {
        done();
        reject(new Error(`no answer within ${timeoutMs} ms`));
      }, timeoutMs);
      waiters.add(dropped);
      answer.then(
        (value) => {
          done();
          resolve(value);
        },
        (error: unknown) => {
          done();
          reject(error instanceof Error ? error : new Error(String(error)));
        },
      );
    });
  }
}

function revisionOf(push: CatalogPush): number {
  return 'snapshot' in push ? push.snapshot.revision : push.delta.revision;
}

function applied(push: CatalogPush): PushAnswer {
  const at: Pick<CatalogSnapshot, 'generation' | 'revision'> = 'snapshot' in push ? push.snapshot : push.delta;
  return { outcome: 'applied', generation: at.generation, revision: at.revision };
}
