import { EMPTY_VIEW, type RegistryView } from './registry-view';
import { TimedWaiters } from '../shared/timed-waiters';

/**
 * The applied snapshot and this session's tool list. A swap is one reference assignment
 * of a fully built view, so a concurrent list or call (which reads current()
 * once) sees the old or the new registry, never a mix or an empty one.
 */
export class ToolRegistry {
  private view: RegistryView = EMPTY_VIEW;
  private readonly listeners = new Set<(view: RegistryView) => void>();
  private readonly holdingWaiters = new TimedWaiters<true>();

  current(): RegistryView {
    return this.view;
  }

  /** True once a snapshot was applied. */
  isHolding(): boolean {
    return this.view.snapshot !== null;
  }

  /** The visible-tools fingerprint of the current view. */
  fingerprint(): string {
    return this.view.fingerprint;
  }

  swap(next: RegistryView): void {
    this.view = next;
    if (next.snapshot !== null) this.holdingWaiters.release(true);
    for (const listener of [...this.listeners]) listener(next);
  }

  /** Resolves true once a snapshot is held, false if none came within `timeoutMs`. */
  whenHolding(timeoutMs: number): Promise<boolean> {
    if (this.isHolding()) return Promise.resolve(true);
    return this.holdingWaiters.wait(timeoutMs).then((held) => held === true);
  }

  /** Registers a listener called after every swap; returns the remover. */
  onSwap(listener: (view: RegistryView) => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
