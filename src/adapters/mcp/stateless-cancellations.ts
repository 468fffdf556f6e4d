/**
 * `notifications/cancelled` for 2026-07-28 requests over HTTP. The SDK answers each stateless
 * request on an instance of its own, so a cancellation POSTed separately reaches no handler
 * (its clients cancel by dropping the request, which already works). Each request in flight
 * is kept here by its JSON-RPC id until answered; a cancellation naming it aborts its signal.
 * Every caller holds this session's one MCP token, so ids are only ever matched within it.
 */
export class StatelessCancellations {
  private readonly inFlight = new Map<string, Set<AbortController>>();

  /** Keeps the controller of the request with `id` until the returned function is called. */
  track(id: unknown, controller: AbortController): () => void {
    const key = idKey(id);
    if (key === undefined) return () => undefined;
    let controllers = this.inFlight.get(key);
    if (!controllers) this.inFlight.set(key, (controllers = new Set()));
    controllers.add(controller);
    return () => {
      controllers.delete(controller);
      if (controllers.size === 0 && this.inFlight.get(key) === controllers) this.inFlight.delete(key);
    };
  }

  /** Aborts the requests in flight under the id a `notifications/cancelled` names. */
  cancel(params: unknown): void {
    const key = idKey(params && typeof params === 'object' ? (params as { requestId?: unknown }).requestId : undefined);
    if (key === undefined) return;
    for (const controller of this.inFlight.get(key) ?? []) controller.abort(new Error('cancelled by the client'));
  }
}

function idKey(id: unknown): string | undefined {
  return typeof id === 'string' || typeof id === 'number' ? `${typeof id}:${String(id)}` : undefined;
}
