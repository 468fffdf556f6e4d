import { createParser } from 'eventsource-parser';
import type { LiveEvent } from '../api';
import { SignInError, sessionFor } from './backend-session';

export type ChannelStatus = 'connecting' | 'live' | 'down';

export interface ChannelHandlers {
  onEvent(event: LiveEvent): void;
  onStatus(status: ChannelStatus): void;
  /** The token was refused: the console signs out instead of retrying. */
  onUnauthorized(): void;
}

/**
 * The backend's live channel (`GET /api/v1/events`, server-sent events) read with fetch, so
 * the credential goes in the Authorization header and never in a URL. It reconnects after a
 * drop, from 0.5 s up to 5 s apart, each time signing in again first: whatever answers on the
 * port then must prove it is the backend before it is sent anything (./backend-session.ts).
 * Each connection starts with a fresh `snapshot` event.
 */
export function openLiveChannel(token: string, handlers: ChannelHandlers): () => void {
  let closed = false;
  let controller: AbortController | undefined;
  let delayMs = 500;
  let retry: number | undefined;

  const connect = async (): Promise<void> => {
    handlers.onStatus('connecting');
    controller = new AbortController();
    const session = sessionFor(token);
    try {
      const credential = await session.current();
      const response = await fetch('/api/v1/events', {
        headers: { authorization: `Bearer ${credential}`, accept: 'text/event-stream' },
        signal: controller.signal,
      });
      if (response.status === 401) {
        // A credential that outlived its time: sign in again (a refused token ends below).
        session.dropped();
        throw new Error('credential refused');
      }
      if (!response.ok || !response.body) throw new Error(`HTTP ${response.status}`);
      await readEvents(response.body, (event) => {
        if (event.type === 'snapshot') {
          delayMs = 500;
          handlers.onStatus('live');
        }
        handlers.onEvent(event);
      });
    } catch (error) {
      if (error instanceof SignInError && error.status === 401) {
        closed = true;
        handlers.onUnauthorized();
        return;
      }
      // dropped, refused, or a server that did not prove itself: tried again below
    }
    // Whatever answers next proves itself first.
    session.dropped();
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
