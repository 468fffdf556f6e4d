import type { Logger } from '../application/ports/logger';

/**
 * What a container started, to stop on close: each binding group registers its disposal
 * where it binds, and close runs them in reverse order of registration, once. A disposal
 * that fails is logged and the rest still run.
 */
export class Disposals {
  private readonly stack: Array<{ what: string; dispose: () => Promise<void> | void }> = [];
  private closing: Promise<void> | undefined;

  constructor(private readonly logger: Logger) {}

  add(what: string, dispose: () => Promise<void> | void): void {
    this.stack.push({ what, dispose });
  }

  /** Runs every disposal, last registered first; later calls wait for the same run. */
  disposeAll(): Promise<void> {
    this.closing ??= this.run();
    return this.closing;
  }

  private async run(): Promise<void> {
    for (let entry = this.stack.pop(); entry !== undefined; entry = this.stack.pop()) {
      try {
        await entry.dispose();
      } catch (error) {
        this.logger.warn({ err: error instanceof Error ? error.message : String(error), what: entry.what }, 'closing failed');
      }
    }
  }
}
