import type { CallOutcome } from '../../domain/call-outcome';

/** One finished tool call as the backend saw it: never its arguments or its result. */
export interface ToolCallRecord {
  invocationId: string;
  pluginId: string;
  /** The plugin-local tool name; empty, with `pluginId`, for a refused call naming no listed tool. */
  localName: string;
  /** The name the agent asked for, set on a `refused` call (which may name no tool at all). */
  exposedName?: string;
  taskId: string;
  sessionId: string;
  outcome: CallOutcome;
  /** The §6 code of a failure or a refusal; null for `success` and `tool_error`. */
  code: string | null;
  /** ISO 8601 UTC time the call began. */
  startedAt: string;
  durationMs: number;
  /** The catalog revision the call's checks ran at (for a call agentctl refused, the one its report arrived at). */
  catalogRevision: number;
  /** Who let the call through when an approval rule held it (docs/approvals.md); `none` when none did. */
  approval?: 'none' | 'client' | 'operator';
  /** For `operator`, who approved it. */
  approvedBy?: string;
}

/** How many calls ended, since the backend started, by outcome and by the §6 code of failures. */
export interface CallTotals {
  total: number;
  byOutcome: Record<CallOutcome, number>;
  byCode: Record<string, number>;
}

export type CallListener = (call: ToolCallRecord) => void;

/**
 * Every tool call once it has ended, told to each listener (metrics, the console's live
 * calls) and kept in a short ring of the most recent ones. Listeners run on the call's path:
 * one that throws is dropped from that delivery, never from the call.
 */
export class CallEvents {
  private readonly recent: ToolCallRecord[] = [];
  private readonly listeners = new Set<CallListener>();

  constructor(private readonly keep = 200) {}

  callEnded(call: ToolCallRecord): void {
    this.recent.push(call);
    if (this.recent.length > this.keep) this.recent.splice(0, this.recent.length - this.keep);
    for (const listener of [...this.listeners]) {
      try {
        listener(call);
      } catch {
        // an observer's fault must never fail or slow down a tool call
      }
    }
  }

  /** The most recent calls, oldest first. */
  recentCalls(): ToolCallRecord[] {
    return [...this.recent];
  }

  /** Registers a listener for every call that ends from now on; returns the remover. */
  onCall(listener: CallListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
