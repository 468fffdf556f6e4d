import { LinkProof, type LinkProver, type ProofChallenge, type ProofOpening, type ProofStep, type ProvingExchange } from '../../application/ports/link-proof';
import { parseClientFirst, parseScramVerifier, ScramClient, scramVerifier, serverFirst, verifyClientFinal } from './scram';

/**
 * The link's proof as SCRAM-SHA-256 (./scram.ts): opening = client-first-message, challenge =
 * server-first-message, proof = client-final-message, answer = server-final-message. The
 * verifier is stored in PostgreSQL's layout, so verifiers already in a store keep working.
 */
export class ScramLinkProof extends LinkProof {
  verifierFor(token: string): string {
    return scramVerifier(token);
  }

  prover(sessionName: string, token: string): LinkProver {
    // PBKDF2 once per salt and iteration count, not on every reconnect.
    const derived = new Map<string, Buffer>();
    return {
      exchange: (): ProvingExchange => {
        const client = new ScramClient(sessionName, token, undefined, derived);
        return { opening: () => client.first(), prove: (challenge) => client.final(challenge), backendProved: (answer) => client.verify(answer) };
      },
    };
  }

  open(opening: string): ProofStep<ProofOpening> {
    const first = parseClientFirst(opening);
    if (!first.ok) return first;
    const { username, nonce, bare } = first.value;
    return {
      ok: true,
      value: {
        sessionName: username,
        challenge: (stored: string): ProofStep<ProofChallenge> => {
          const verifier = parseScramVerifier(stored);
          if (!verifier.ok) return verifier;
          const message = serverFirst(verifier.value, nonce);
          return { ok: true, value: { message, check: (proof) => verifyClientFinal(verifier.value, bare, message, proof) } };
        },
      },
    };
  }
}
