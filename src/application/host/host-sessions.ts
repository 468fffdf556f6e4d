import { hashToken } from '../../domain/tokens';
import type { HostCallBinding, HostProfile } from '../ports/host-access';
import type { IdGenerator } from '../ports/id-generator';

/** One open Host session: its bearer token, the calls its process serves, and how to end it. */
export interface OpenHostSession {
  readonly token: string;
  /** Registers a call in flight to this session's process; see HostGrant.admit. */
  admit(call: HostCallBinding): () => void;
  /** The token stops working at once (and with it every call it served); idempotent. */
  close(): void;
}

/** What a token acts with: its process's profile, and the calls in flight to that process. */
export interface HostCaller {
  readonly profile: HostProfile;
  /** The call `invocationId` names if it is in flight to this very process, else undefined. */
  call(invocationId: string): HostCallBinding | undefined;
}

/**
 * The Host tokens in force, one per running plugin process: each names the profile (plugin,
 * capabilities, configuration) its calls act with, and keeps the invocation registry of that
 * process — the calls sent to it and not yet answered, cancelled or timed out — so a request
 * naming a call reaches that call's workspace and task only while the call runs, and only
 * from the process serving it. Only token hashes are kept as keys.
 */
export class HostSessions {
  private readonly byHash = new Map<string, { profile: HostProfile; calls: Map<string, HostCallBinding> }>();

  constructor(private readonly ids: IdGenerator) {}

  open(profile: HostProfile): OpenHostSession {
    const token = this.ids.newToken();
    const hash = hashToken(token);
    const calls = new Map<string, HostCallBinding>();
    this.byHash.set(hash, { profile, calls });
    return {
      token,
      admit: (call) => {
        calls.set(call.invocationId, call);
        // Only this admission's own entry goes: an id is never reused, but a stale end must not remove a live one.
        return () => {
          if (calls.get(call.invocationId) === call) calls.delete(call.invocationId);
        };
      },
      close: () => {
        calls.clear();
        this.byHash.delete(hash);
      },
    };
  }

  /** What a token acts with, or undefined for a token that is unknown or ended. */
  find(token: string): HostCaller | undefined {
    const entry = token === '' ? undefined : this.byHash.get(hashToken(token));
    if (!entry) return undefined;
    return { profile: entry.profile, call: (invocationId) => (invocationId === '' ? undefined : entry.calls.get(invocationId)) };
  }

  /** How many tokens work now (for tests and metrics). */
  get size(): number {
    return this.byHash.size;
  }
}
