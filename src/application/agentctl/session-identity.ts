import type { SessionIdentity } from '../../domain/session';
import { TimedWaiters } from '../shared/timed-waiters';

export type IdentityConfirmation = { ok: true; identity: SessionIdentity } | { ok: false; message: string };

const FIELDS = ['task_id', 'session_id', 'workspace_id', 'surface'] as const;

/**
 * The session this agentctl serves. Its launch may say who it is (complete or in part); the
 * backend's hello answer is authoritative, and a launch that said otherwise is a fatal mismatch
 * (the agentctl would show one task's tools to another).
 */
export class AgentctlSession {
  private identity: SessionIdentity | null;
  private readonly waiters = new TimedWaiters<SessionIdentity>();

  constructor(private readonly launchedAs: Partial<SessionIdentity> = {}) {
    this.identity = FIELDS.every((key) => launchedAs[key] !== undefined) ? (launchedAs as SessionIdentity) : null;
  }

  /** The identity, or null until a complete launch identity or a hello answer gave it. */
  current(): SessionIdentity | null {
    return this.identity;
  }

  /** Resolves with the identity once known, or null after `timeoutMs`. */
  whenKnown(timeoutMs: number): Promise<SessionIdentity | null> {
    if (this.identity) return Promise.resolve(this.identity);
    return this.waiters.wait(timeoutMs).then((identity) => identity ?? null);
  }

  /** Checks the backend's answer against what is known; on success it becomes the identity. */
  confirm(fromBackend: SessionIdentity): IdentityConfirmation {
    const known: Partial<SessionIdentity> = this.identity ?? this.launchedAs;
    for (const key of FIELDS) {
      if (known[key] !== undefined && known[key] !== fromBackend[key]) {
        return { ok: false, message: `backend says ${key} is "${fromBackend[key]}" but this agentctl serves "${known[key]}"` };
      }
    }
    this.identity = { ...fromBackend };
    this.waiters.release(this.identity);
    return { ok: true, identity: this.identity };
  }
}
