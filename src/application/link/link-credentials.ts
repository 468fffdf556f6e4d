import { ScramClient } from '../../domain/scram';
import { hashToken } from '../../domain/tokens';

/**
 * What an agentctl links with: its session token, used only to compute SCRAM proofs (the
 * token itself never leaves the process), and the SHA-256 of it that names the session.
 * PBKDF2 runs once per salt, not on every reconnect.
 */
export class LinkCredentials {
  readonly username: string;
  private readonly derived = new Map<string, Buffer>();

  constructor(private readonly sessionToken: string) {
    this.username = hashToken(sessionToken);
  }

  /** A fresh exchange (a fresh nonce) for one connection attempt. */
  exchange(): ScramClient {
    return new ScramClient(this.username, this.sessionToken, undefined, this.derived);
  }
}
