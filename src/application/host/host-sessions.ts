import { hashToken } from '../../domain/tokens';
import type { HostProfile } from '../ports/host-access';
import type { IdGenerator } from '../ports/id-generator';

/** One open Host session: its bearer token, and how to end it. */
export interface OpenHostSession {
  readonly token: string;
  /** The token stops working at once; idempotent. */
  close(): void;
}

/**
 * The Host tokens in force, one per running plugin process: each names the profile (plugin,
 * capabilities, configuration) its calls act with. Only token hashes are kept as keys.
 */
export class HostSessions {
  private readonly byHash = new Map<string, HostProfile>();

  constructor(private readonly ids: IdGenerator) {}

  open(profile: HostProfile): OpenHostSession {
    const token = this.ids.newToken();
    const hash = hashToken(token);
    this.byHash.set(hash, profile);
    return { token, close: () => void this.byHash.delete(hash) };
  }

  /** The profile a token acts with, or undefined for a token that is unknown or ended. */
  find(token: string): HostProfile | undefined {
    return token === '' ? undefined : this.byHash.get(hashToken(token));
  }

  /** How many tokens work now (for tests and metrics). */
  get size(): number {
    return this.byHash.size;
  }
}
