import { Client, type ClientConfig } from 'pg';
import type { Logger } from '../../application/ports/logger';
import { StoreChanges } from '../../application/ports/store-changes';
import { failureReason } from './store-open-error';

/** The channel every committed change is announced on, with the committing replica's id. */
export const CHANGES_CHANNEL = 'toolport_changes';

/**
 * LISTEN on a dedicated connection (a pooled one would be handed to other work). When that
 * connection drops it reconnects with backoff and, once listening again, calls every listener
 * once: notifications sent while it was away are lost, so they read the store again.
 */
export class PostgresStoreChanges extends StoreChanges {
  private readonly listeners = new Set<() => void>();
  private client: Client | undefined;
  private retryTimer: ReturnType<typeof setTimeout> | undefined;
  private attempt = 0;
  private closed = false;

  constructor(
    private readonly config: ClientConfig,
    /** Changes this replica committed itself are not reported to it. */
    private readonly replicaId: string,
    private readonly logger: Logger,
  ) {
    super();
  }

  override onChange(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  override async start(): Promise<void> {
    await this.listen();
  }

  override async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.retryTimer);
    const client = this.client;
    this.client = undefined;
    await client?.end().catch(() => undefined);
  }

  private async listen(): Promise<void> {
    const client = new Client({ ...this.config, application_name: 'toolport-changes', keepAlive: true });
    client.on('notification', (message) => {
      if (message.payload !== this.replicaId) this.tell();
    });
    client.on('error', (error) => this.lost(client, error));
    client.on('end', () => this.lost(client, new Error('the change feed connection ended')));
    this.client = client;
    try {
      await client.connect();
      await client.query(`LISTEN ${CHANGES_CHANNEL}`);
    } catch (error) {
      this.lost(client, error);
      throw error;
    }
  }

  private lost(client: Client, error: unknown): void {
    if (this.client !== client || this.closed) return;
    this.client = undefined;
    void client.end().catch(() => undefined);
    this.logger.warn({ reason: failureReason(error) }, 'store change feed lost; reconnecting');
    this.scheduleReconnect();
  }

  private scheduleReconnect(): void {
    const delay = Math.min(2000, 100 * 2 ** this.attempt);
    this.attempt = Math.min(this.attempt + 1, 8);
    this.retryTimer = setTimeout(() => {
      this.listen().then(
        () => {
          this.attempt = 0;
          this.logger.info({}, 'store change feed back; reading the store again');
          this.tell();
        },
        () => undefined,
      );
    }, delay);
    this.retryTimer.unref?.();
  }

  private tell(): void {
    for (const listener of [...this.listeners]) listener();
  }
}
