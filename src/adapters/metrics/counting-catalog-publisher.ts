import { CatalogPublisher, type CatalogPush, type PushAnswer } from '../../application/ports/catalog-publisher';

/** Counts failed pushes of the publisher it wraps (for `toolport_fanout_failures_total`). */
export class CountingCatalogPublisher extends CatalogPublisher {
  constructor(
    private readonly inner: CatalogPublisher,
    private readonly onFailure: () => void,
  ) {
    super();
  }

  linkedSessions(): string[] {
    return this.inner.linkedSessions();
  }

  isLinked(sessionId: string): boolean {
    return this.inner.isLinked(sessionId);
  }

  sendMarks(marks: ReadonlyMap<string, readonly string[]>, timeoutMs: number): Promise<void> {
    return this.inner.sendMarks(marks, timeoutMs);
  }

  async push(sessionIds: readonly string[], push: CatalogPush, timeoutMs: number): Promise<Map<string, PushAnswer | Error>> {
    const answers = await this.inner.push(sessionIds, push, timeoutMs);
    for (const answer of answers.values()) if (answer instanceof Error) this.onFailure();
    return answers;
  }
}
