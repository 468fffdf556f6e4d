import type { SessionRecord } from '../../domain/session';
import { LinkRefusal, type LinkRefusalCode } from '../link/link-refusal';
import type { LinkProof, ProofChallenge } from '../ports/link-proof';
import type { SessionStore } from '../ports/session-store';

/** An exchange begun and not finished yet: the session it is for, and the challenge its second step answers. */
export interface LinkChallenge {
  readonly sessionId: string;
  /** The verifier the challenge was made for: a token reissued since (ReissueSessionToken) fails the second step. */
  readonly verifier: string;
  readonly proof: ProofChallenge;
}

/**
 * Authenticates an agentctl's link (docs/http-api.md §8) in two steps. `begin` takes the
 * agentctl's opening message (it names the session by the SHA-256 of its token) and answers
 * the challenge for the session's verifier; `finish` checks the agentctl's proof and answers
 * the backend's own, which the agentctl checks before it sends anything else. Every failure
 * is a LinkRefusal whose code says why (for the logs) and whose message is one for all, so a
 * peer learns nothing about which sessions exist. A `dead` session's agentctl that links
 * again makes it live.
 */
export class AuthenticateSession {
  constructor(
    private readonly store: SessionStore,
    private readonly proof: LinkProof,
  ) {}

  async begin(opening: string): Promise<{ reply: string; challenge: LinkChallenge }> {
    const opened = this.proof.open(opening);
    if (!opened.ok) throw refusal('PROOF_INVALID');
    const session = await this.store.findSessionByTokenHash(opened.value.sessionName);
    if (!session) throw refusal('SESSION_UNKNOWN');
    if (session.status === 'stopped') throw refusal('SESSION_STOPPED');
    const challenge = opened.value.challenge(session.session_verifier);
    if (!challenge.ok) throw refusal('SESSION_UNVERIFIABLE');
    return { reply: challenge.value.message, challenge: { sessionId: session.session_id, verifier: session.session_verifier, proof: challenge.value } };
  }

  async finish(challenge: LinkChallenge, proof: string): Promise<{ reply: string; session: SessionRecord }> {
    const checked = challenge.proof.check(proof);
    if (!checked.ok) throw refusal('PROOF_INVALID');
    // Stopped between the two steps: refused like any other ended session.
    const session = await this.store.getSession(challenge.sessionId);
    if (!session) throw refusal('SESSION_UNKNOWN');
    if (session.status === 'stopped') throw refusal('SESSION_STOPPED');
    if (session.session_verifier !== challenge.verifier) throw refusal('SESSION_UNKNOWN');
    return { reply: checked.value, session };
  }
}

function refusal(code: LinkRefusalCode): LinkRefusal {
  return new LinkRefusal(code, 'unknown or ended session');
}
