import { ToolportError } from '../../domain/errors';
import { parseClientFirst, parseScramVerifier, serverFirst, verifyClientFinal, type ScramVerifier } from '../../domain/scram';
import type { SessionRecord } from '../../domain/session';
import type { PluginStore } from '../ports/plugin-store';

/** An exchange begun and not finished yet: what its second step checks against. */
export interface LinkChallenge {
  readonly sessionId: string;
  readonly verifier: ScramVerifier;
  readonly clientFirstBare: string;
  readonly serverFirst: string;
}

/**
 * Authenticates an agentctl's link with SCRAM-SHA-256 (CONTRACT §7, domain/scram.ts) in two
 * steps. `begin` takes the client-first-message (its user name is the SHA-256 of the session
 * token) and answers the server-first-message; `finish` checks the client's proof and answers
 * the server-final-message, whose signature the agentctl checks before it sends anything else.
 * A session that is `stopped`, unknown, or started before verifiers existed is UNAUTHORIZED,
 * with one message for all, so a peer learns nothing about which sessions exist. A `dead`
 * session's agentctl that links again makes it live (§5).
 */
export class AuthenticateSession {
  constructor(private readonly store: PluginStore) {}

  async begin(clientFirst: string): Promise<{ serverFirst: string; challenge: LinkChallenge }> {
    const first = parseClientFirst(clientFirst);
    if (!first.ok) throw new ToolportError('UNAUTHORIZED', `auth.begin: ${first.reason}`);
    const session = await this.store.findSessionByTokenHash(first.value.username);
    const verifier = session ? parseScramVerifier(session.session_verifier) : undefined;
    if (!session || session.status === 'stopped' || !verifier?.ok) throw unauthorized();
    const challenge: LinkChallenge = {
      sessionId: session.session_id,
      verifier: verifier.value,
      clientFirstBare: first.value.bare,
      serverFirst: serverFirst(verifier.value, first.value.nonce),
    };
    return { serverFirst: challenge.serverFirst, challenge };
  }

  async finish(challenge: LinkChallenge, clientFinal: string): Promise<{ serverFinal: string; session: SessionRecord }> {
    const checked = verifyClientFinal(challenge.verifier, challenge.clientFirstBare, challenge.serverFirst, clientFinal);
    if (!checked.ok) throw unauthorized();
    // Stopped between the two steps: refused like any other ended session.
    const session = await this.store.getSession(challenge.sessionId);
    if (!session || session.status === 'stopped') throw unauthorized();
    return { serverFinal: checked.value, session };
  }
}

function unauthorized(): ToolportError {
  return new ToolportError('UNAUTHORIZED', 'unknown or ended session');
}
