/**
 * One started process of a plugin as a runtime hands it to the PluginSupervisor: it passed its
 * start (handshake and first health check), and from then on the supervisor decides when it
 * is down, restarts it and stops it.
 */
export interface SupervisedProcess {
  readonly pid: number | undefined;
  /** Calls `listener` once, at once, when the process exits on its own; `reason` says how. */
  onExit(listener: (reason: string) => void): void;
  /** Resolves null when healthy within `deadlineMs`, else why not. Never rejects. */
  checkHealth(deadlineMs: number): Promise<string | null>;
  /** Stops it gracefully, then by force; resolves once it is gone. */
  stop(): Promise<void>;
  /** Ends it at once after a crash (the whole group); resolves once it is gone. */
  kill(): Promise<void>;
}

/** Starts one process; rejects with PluginStartError and leaves nothing running when it fails. */
export type ProcessStarter<P extends SupervisedProcess> = () => Promise<P>;
