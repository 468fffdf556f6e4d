import { CatalogPublisher, type ApplyOutcome, type PushTarget } from '../../application/ports/catalog-publisher';
import type { CatalogSnapshot } from '../../domain/catalog';

/** Counts failed pushes of the publisher it wraps (for `toolport_fanout_failures_total`). */
export class CountingCatalogPublisher extends CatalogPublisher {
  constructor(
    private readonly inner: CatalogPublisher,
    private readonly onFailure: () => void,
  ) {
    super();
  }

  async push(target: PushTarget, snapshot: CatalogSnapshot, timeoutMs: number): Promise<ApplyOutcome> {
    try {
      return await this.inner.push(target, snapshot, timeoutMs);
    } catch (error) {
      this.onFailure();
      throw error;
    }
  }
}
