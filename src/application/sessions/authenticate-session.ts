import { ToolportError } from '../../domain/errors';
import type { SessionRecord } from '../../domain/session';
import type { LinkProof, ProofChallenge } from '../ports/link-proof';
import type { PluginStore } from '../ports/plugin-store';

/** An exchange begun and not finished yet: the session it is for, and the challenge its second step answers. */
export interface LinkChallenge {
  readonly sessionId: string;
  readonly proof: ProofChallenge;
}

/**
 * Authenticates an agentctl's link (docs/http-api.md §8) in two steps. `begin` takes the
 * agentctl's opening message (it names the session by the SHA-256 of its token) and answers
 * the challenge for the session's verifier; `finish` checks the agentctl's proof and answers
 * the backend's own, which the agentctl checks before it sends anything else. A session that
 * is `stopped`, unknown, or started before verifiers existed is UNAUTHORIZED, with one message
 * for all, so a peer learns nothing about which sessions exist. A `dead` session's agentctl
 * that links again makes it live.
 */
export class AuthenticateSession {
  constructor(
    private readonly store: PluginStore,
    private readonly proof: LinkProof,
  ) {}

  async begin(opening: string): Promise<{ reply: string; challenge: LinkChallenge }> {
    const opened = this.proof.open(opening);
    if (!opened.ok) throw new ToolportError('UNAUTHORIZED', `the opening message is not one: ${opened.reason}`);
    const session = await this.store.findSessionByTokenHash(opened.value.sessionName);
    const challenge = session ? opened.value.challenge(session.session_verifier) : undefined;
    if (!session || session.status === 'stopped' || !challenge?.ok) throw unauthorized();
    return { reply: challenge.value.message, challenge: { sessionId: session.session_id, proof: challenge.value } };
  }

  async finish(challenge: LinkChallenge, proof: string): Promise<{ reply: string; session: SessionRecord }> {
    const checked = challenge.proof.check(proof);
    if (!checked.ok) throw unauthorized();
    // Stopped between the two steps: refused like any other ended session.
    const session = await this.store.getSession(challenge.sessionId);
    if (!session || session.status === 'stopped') throw unauthorized();
    return { reply: checked.value, session };
  }
}

function unauthorized(): ToolportError {
  return new ToolportError('UNAUTHORIZED', 'unknown or ended session');
}
