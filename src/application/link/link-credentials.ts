import { hashToken } from '../../domain/tokens';
import type { LinkProof, LinkProver, ProvingExchange } from '../ports/link-proof';

/**
 * What an agentctl links with: its session token, used only to make proofs (the token itself
 * never leaves the process), and the SHA-256 of it that names the session.
 */
export class LinkCredentials {
  readonly sessionName: string;
  private readonly prover: LinkProver;

  constructor(sessionToken: string, proof: LinkProof) {
    this.sessionName = hashToken(sessionToken);
    this.prover = proof.prover(this.sessionName, sessionToken);
  }

  /** A fresh exchange for one connection attempt. */
  exchange(): ProvingExchange {
    return this.prover.exchange();
  }
}
