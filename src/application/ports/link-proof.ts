/** One step of a proof: its next message, or why it failed (for the logs only; peers learn nothing from it). */
export type ProofStep<T> = { ok: true; value: T } | { ok: false; reason: string };

/**
 * The agentctl's side of one exchange, made for one connection attempt: its opening message,
 * its proof once the backend challenged it, then whether the backend's last message proves
 * the backend holds the session's verifier.
 */
export interface ProvingExchange {
  opening(): string;
  prove(challenge: string): ProofStep<string>;
  backendProved(answer: string): boolean;
}

/** The agentctl's side for one session token: each exchange is a fresh one, the costly key derivation is shared. */
export interface LinkProver {
  exchange(): ProvingExchange;
}

/** The backend's side once the opening message named the session (by the SHA-256 of its token). */
export interface ProofOpening {
  readonly sessionName: string;
  /** The challenge for the session's stored verifier; fails when what is stored is no verifier. */
  challenge(verifier: string): ProofStep<ProofChallenge>;
}

/** A challenge sent and not answered yet. */
export interface ProofChallenge {
  /** What the agentctl is sent. */
  readonly message: string;
  /** Checks the agentctl's proof; on success the answer proving the backend holds the verifier. */
  check(proof: string): ProofStep<string>;
}

/**
 * The mutual proof an agentctl's link starts with (docs/http-api.md §8): the agentctl proves
 * it holds its session token without sending it, and the backend proves it holds the
 * session's verifier, which it made when it started the session and which lets nobody make a
 * proof. The messages are opaque to the core; the adapter owns their format. Never throws:
 * every failure is a step that is not ok.
 */
export abstract class LinkProof {
  /** What the backend stores for a new session token (never the token). */
  abstract verifierFor(token: string): string;

  /** The agentctl's side for `token`, the session named `sessionName`. */
  abstract prover(sessionName: string, token: string): LinkProver;

  /** The backend's side: reads an agentctl's opening message. */
  abstract open(opening: string): ProofStep<ProofOpening>;
}
