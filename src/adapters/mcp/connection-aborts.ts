import type { ServerResponse } from 'node:http';
import type { RequestId } from '@modelcontextprotocol/sdk/types.js';

/**
 * Aborts a request's handler when the client drops the HTTP response before it finished.
 * The SDK aborts a handler on `notifications/cancelled` only, not on a dropped connection, so
 * each POSTed request id gets its own AbortController tied to that response's `close`.
 */
export class ConnectionAborts {
  private readonly controllers = new Map<string, AbortController>();

  /** Registers every request id in a POSTed body against `res`. */
  watch(sessionId: string, body: unknown, res: ServerResponse): void {
    const keys = requestIds(body).map((id) => key(sessionId, id));
    if (keys.length === 0) return;
    for (const k of keys) this.controllers.set(k, new AbortController());
    res.on('close', () => {
      for (const k of keys) {
        const controller = this.controllers.get(k);
        this.controllers.delete(k);
        if (!res.writableFinished) controller?.abort(new Error('the client closed the connection'));
      }
    });
  }

  /** The signal a handler runs under: the SDK's own, combined with the connection's. */
  signalFor(sessionId: string | undefined, requestId: RequestId, sdkSignal: AbortSignal): AbortSignal {
    if (sessionId === undefined) return sdkSignal;
    const controller = this.controllers.get(key(sessionId, requestId));
    return controller ? AbortSignal.any([sdkSignal, controller.signal]) : sdkSignal;
  }
}

function key(sessionId: string, id: RequestId): string {
  return `${sessionId}\u0000${typeof id}:${String(id)}`;
}

function requestIds(body: unknown): RequestId[] {
  const messages = Array.isArray(body) ? body : [body];
  const ids: RequestId[] = [];
  for (const message of messages) {
    if (message && typeof message === 'object' && 'method' in message && 'id' in message) {
      const id = (message as { id: unknown }).id;
      if (typeof id === 'string' || typeof id === 'number') ids.push(id);
    }
  }
  return ids;
}
