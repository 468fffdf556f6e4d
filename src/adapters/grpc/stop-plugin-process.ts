import type { PluginConnection } from './plugin-connection';
import type { PluginProcess, ProcessExit } from './plugin-process';

/** The §8 stop sequence; the defaults are the contract's numbers. */
export interface StopTimings {
  shutdownMs: number;
  termMs: number;
}

export const DEFAULT_STOP_TIMINGS: StopTimings = { shutdownMs: 1000, termMs: 2000 };

/** How a stop went: the exit, and whether the plugin acknowledged Shutdown. */
export interface StopOutcome {
  exit: ProcessExit;
  shutdownAcknowledged: boolean;
}

/**
 * Stops a plugin process: `plugin.GRPCController/Shutdown` (within shutdownMs), then SIGTERM to
 * its group and descendants, then after termMs SIGKILL to them; what the leader leaves behind
 * when it exits is killed with its exit (PluginProcess). A plugin that does not implement Shutdown
 * answers UNIMPLEMENTED at once and goes straight to SIGTERM. Resolves once it has exited.
 */
export async function stopPluginProcess(
  child: PluginProcess,
  connection: PluginConnection | null,
  timings: StopTimings = DEFAULT_STOP_TIMINGS,
): Promise<StopOutcome> {
  let acknowledged = false;
  if (!child.hasExited && connection) {
    const started = Date.now();
    acknowledged = await connection.requestShutdown(timings.shutdownMs);
    // Closing our side at once lets the plugin's graceful server shutdown finish without
    // waiting for the connection to go idle.
    connection.close();
    if (acknowledged) await exitsWithin(child, timings.shutdownMs - (Date.now() - started));
  }
  connection?.close();
  if (!child.hasExited) {
    child.signalTree('SIGTERM');
    if (!(await exitsWithin(child, timings.termMs))) child.signalTree('SIGKILL');
  }
  return { exit: await child.exited, shutdownAcknowledged: acknowledged };
}

export function exitsWithin(child: PluginProcess, ms: number): Promise<boolean> {
  if (child.hasExited) return Promise.resolve(true);
  if (ms <= 0) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    void child.exitEvent.then(() => {
      clearTimeout(timer);
      resolve(true);
    });
  });
}
