import { createParser } from 'eventsource-parser';
import type { LiveEvent } from '../api';

export type ChannelStatus = 'connecting' | 'live' | 'down';

export interface ChannelHandlers {
  onEvent(event: LiveEvent): void;
  onStatus(status: ChannelStatus): void;
  /** The token was refused: the console signs out instead of retrying. */
  onUnauthorized(): void;
}

/**
 * The backend's live channel (`GET /api/v1/events`, server-sent events) read with fetch, so
 * the token goes in the Authorization header and never in a URL. It reconnects after a drop,
 * from 0.5 s up to 5 s apart; each connection starts with a fresh `snapshot` event.
 */
export function openLiveChannel(token: string, handlers: ChannelHandlers): () => void {
  let closed = false;
  let controller: AbortController | undefined;
  let delayMs = 500;
  let retry: number | undefined;

  const connect = async (): Promise<void> => {
    handlers.onStatus('connecting');
    controller = new AbortController();
    try {
      const response = await fetch('/api/v1/events', { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream' }, signal: controller.signal });
      if (response.status === 401) {
        closed = true;
        handlers.onUnauthorized();
        return;
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      await readEvents(response.body, (event) => {
        if (event.type === 'snapshot') {
          delayMs = 500;
          handlers.onStatus('live');
        }
        handlers.onEvent(event);
      });
    } catch {
      // dropped or refused: tried again below
    }
    if (closed) return;
    handlers.onStatus('down');
    retry = window.setTimeout(() => void connect(), delayMs);
    delayMs = Math.min(delayMs * 2, 5000);
  };

  void connect();
  return () => {
    closed = true;
    window.clearTimeout(retry);
    controller?.abort();
  };
}

/** Hands on each event of a server-sent event stream as it arrives, its data parsed as JSON. */
async function readEvents(body: ReadableStream<Uint8Array>, onEvent: (event: LiveEvent) => void): Promise<void> {
  // The backend sends the events src/api declares; one of a type this console does not know is left alone.
  const parser = createParser({ onEvent: (event) => onEvent({ type: event.event ?? 'message', data: JSON.parse(event.data) } as LiveEvent) });
  const reader = body.getReader();
  const decoder = new TextDecoder();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) return;
    parser.feed(decoder.decode(value, { stream: true }));
  }
}
