import type { PluginInstance } from '../ports/plugin-runtime';
import { InvocationError } from '../../domain/errors';

/** One call in flight; `signal` aborts when a lifecycle operation cancels it. */
export interface InFlightCall {
  readonly instance: PluginInstance;
  readonly signal: AbortSignal;
  /** Whether a lifecycle operation cancelled the call (CANCELLED_BY_LIFECYCLE). */
  cancelledByLifecycle(): boolean;
  /** Forgets the call; call once it has ended. */
  end(): void;
}

/**
 * The shared view of which instance serves each plugin and which calls are in flight, so a
 * lifecycle operation can swap or drop an instance and cancel its calls, and invoke can
 * count them against the cap.
 */
export class RunningPlugins {
  private readonly current = new Map<string, PluginInstance>();
  private readonly calls = new Map<string, Set<{ instance: PluginInstance; controller: AbortController; sessionId: string }>>();

  /** The instance that serves `pluginId` now, if any. */
  instanceOf(pluginId: string): PluginInstance | undefined {
    return this.current.get(pluginId);
  }

  /** Whether `instance` is the one serving its plugin (status events of others are stale). */
  isCurrent(instance: PluginInstance): boolean {
    return this.current.get(instance.pluginId)?.instanceId === instance.instanceId;
  }

  setCurrent(instance: PluginInstance): void {
    this.current.set(instance.pluginId, instance);
  }

  /** Drops the serving instance of `pluginId` and returns it. */
  release(pluginId: string): PluginInstance | undefined {
    const instance = this.current.get(pluginId);
    this.current.delete(pluginId);
    return instance;
  }

  /** Calls to `pluginId` in flight now, on any of its instances. */
  inFlight(pluginId: string): number {
    return this.calls.get(pluginId)?.size ?? 0;
  }

  /** Calls to `pluginId` in flight now from one session. */
  inFlightFrom(pluginId: string, sessionId: string): number {
    let count = 0;
    for (const entry of this.calls.get(pluginId) ?? []) if (entry.sessionId === sessionId) count += 1;
    return count;
  }

  begin(instance: PluginInstance, sessionId: string): InFlightCall {
    const entry = { instance, controller: new AbortController(), sessionId };
    const set = this.calls.get(instance.pluginId) ?? new Set();
    set.add(entry);
    this.calls.set(instance.pluginId, set);
    return {
      instance,
      signal: entry.controller.signal,
      cancelledByLifecycle: () => entry.controller.signal.aborted,
      end: () => {
        set.delete(entry);
        if (set.size === 0 && this.calls.get(instance.pluginId) === set) this.calls.delete(instance.pluginId);
      },
    };
  }

  /** Cancels every call in flight to `pluginId` (only those on `instance` when given). */
  cancel(pluginId: string, instance?: PluginInstance): number {
    let cancelled = 0;
    for (const entry of this.calls.get(pluginId) ?? []) {
      if (instance && entry.instance.instanceId !== instance.instanceId) continue;
      entry.controller.abort(new InvocationError('CANCELLED_BY_LIFECYCLE', `plugin ${pluginId} is being changed`));
      cancelled += 1;
    }
    return cancelled;
  }
}
