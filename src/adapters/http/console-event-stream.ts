import type { Request, Response } from 'express';
import type { ConsoleEvent } from '../../api';
import type { ConsoleFeed } from '../../application/console/console-feed';

export interface EventStreamOptions {
  /** A comment line this often keeps proxies and the browser from timing the stream out. */
  heartbeatMs?: number;
  /** A console this far behind (bytes queued for it) is dropped; it reconnects and starts over. */
  maxQueuedBytes?: number;
}

/**
 * `GET /api/v1/events`: the console's live channel as server-sent events on a response the
 * client reads with fetch (so the admin token travels in the Authorization header, never in a
 * URL). First a `snapshot` event, then one event per change, in the order they happened.
 * Changes made while the snapshot is read are held and sent after it.
 */
export function consoleEventStream(feed: ConsoleFeed, options: EventStreamOptions = {}) {
  const heartbeatMs = options.heartbeatMs ?? 15_000;
  const maxQueuedBytes = options.maxQueuedBytes ?? 8 * 1024 * 1024;
  return (req: Request, res: Response): void => {
    res.status(200).set({
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-store',
      'x-accel-buffering': 'no',
    });
    res.flushHeaders();
    const send = (type: string, data: unknown): void => {
      if (res.destroyed) return;
      res.write(`event: ${type}\ndata: ${JSON.stringify(data)}\n\n`);
      if (res.writableLength > maxQueuedBytes) res.destroy();
    };
    let held: ConsoleEvent[] | null = [];
    const unsubscribe = feed.subscribe((event) => (held ? held.push(event) : send(event.type, event.data)));
    const heartbeat = setInterval(() => res.write(': keep-alive\n\n'), heartbeatMs);
    heartbeat.unref();
    const end = (): void => {
      unsubscribe();
      clearInterval(heartbeat);
    };
    req.on('close', end);
    res.on('close', end);
    feed.snapshot().then(
      (snapshot) => {
        send('snapshot', snapshot);
        for (const event of held ?? []) send(event.type, event.data);
        held = null;
      },
      () => res.destroy(),
    );
  };
}
