import type { PluginRuntime, PluginStatusEvent } from '../../src/application/ports/plugin-runtime';

/** Records a runtime's status events and lets a test wait for one, with a deadline. */
export class StatusRecorder {
  readonly events: PluginStatusEvent[] = [];
  private readonly waiters = new Set<() => void>();
  private readonly unsubscribe: () => void;

  constructor(runtime: PluginRuntime) {
    this.unsubscribe = runtime.onStatus((event) => {
      this.events.push(event);
      for (const wake of [...this.waiters]) wake();
    });
  }

  /** Resolves with the first recorded event matching `predicate` (past or future). */
  waitFor(predicate: (event: PluginStatusEvent, index: number) => boolean, timeoutMs = 5000, description = 'status event'): Promise<PluginStatusEvent> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.events.find(predicate);
        if (!found) return false;
        clearTimeout(timer);
        this.waiters.delete(wake);
        resolve(found);
        return true;
      };
      const wake = (): void => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(wake);
        reject(new Error(`timed out after ${timeoutMs} ms waiting for ${description}; saw ${JSON.stringify(this.events.map(summary))}`));
      }, timeoutMs);
      if (!check()) this.waiters.add(wake);
    });
  }

  dispose(): void {
    this.unsubscribe();
    this.waiters.clear();
  }
}

function summary(event: PluginStatusEvent): string {
  return `${event.instance.instanceId}:${event.status}:${event.reason ?? ''}`;
}
