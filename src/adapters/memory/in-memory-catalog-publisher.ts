import { CatalogPublisher, type ApplyOutcome, type PushTarget } from '../../application/ports/catalog-publisher';
import type { CatalogSnapshot } from '../../domain/catalog';

export type PushHandler = (target: PushTarget, snapshot: CatalogSnapshot, timeoutMs: number) => ApplyOutcome | Promise<ApplyOutcome>;

/**
 * A CatalogPublisher that records every push; by default each target takes what it gets
 * (`applied`), and a test can make a session fail or answer as it likes.
 */
export class InMemoryCatalogPublisher extends CatalogPublisher {
  /** Every attempt, in order, failed ones included. */
  readonly attempts: Array<{ target: PushTarget; snapshot: CatalogSnapshot; ok: boolean }> = [];
  private readonly handlers = new Map<string, PushHandler>();
  private readonly failuresLeft = new Map<string, number>();

  /** Pushes that a target took, per session id, in order. */
  delivered(sessionId: string): CatalogSnapshot[] {
    return this.attempts.filter((a) => a.ok && a.target.sessionId === sessionId).map((a) => a.snapshot);
  }

  /** Makes the next `times` pushes to `sessionId` fail (Infinity: until told otherwise). */
  failNext(sessionId: string, times: number): void {
    this.failuresLeft.set(sessionId, times);
  }

  /** Answers pushes to `sessionId` with `handler` instead of `applied`. */
  handle(sessionId: string, handler: PushHandler): void {
    this.handlers.set(sessionId, handler);
  }

  async push(target: PushTarget, snapshot: CatalogSnapshot, timeoutMs: number): Promise<ApplyOutcome> {
    const left = this.failuresLeft.get(target.sessionId) ?? 0;
    if (left > 0) {
      this.failuresLeft.set(target.sessionId, left - 1);
      this.attempts.push({ target, snapshot, ok: false });
      throw new Error(`agentctl of session ${target.sessionId} is unreachable`);
    }
    try {
      const outcome = await (this.handlers.get(target.sessionId)?.(target, snapshot, timeoutMs) ?? 'applied');
      this.attempts.push({ target, snapshot, ok: true });
      return outcome;
    } catch (error) {
      this.attempts.push({ target, snapshot, ok: false });
      throw error;
    }
  }
}
