import type { StartedSession } from '../../api';
import { ToolportError } from '../../domain/errors';
import { hashToken } from '../../domain/tokens';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { LinkProof } from '../ports/link-proof';
import type { Logger } from '../ports/logger';
import type { SessionStore } from '../ports/session-store';
import type { BackendUrl } from './backend-url';
import { findSession } from './find-session';

/**
 * Issues a fresh session token for a session whose agentctl runs elsewhere (`launch: false`),
 * for a client configuration written after the first token was shown (docs/http-api.md §3):
 * only the hash and verifier of the new token are stored, replacing the old ones, so the old
 * token never links again. Refused with SESSION_NOT_REISSUABLE, nothing changed, for a session
 * the backend launched (its agentctl holds its tokens), one whose agentctl is linked now (it
 * would keep its link on the old token) and a stopped one.
 */
export class ReissueSessionToken {
  constructor(
    private readonly store: SessionStore,
    private readonly backendUrl: BackendUrl,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly logger: Logger,
    private readonly proof: LinkProof,
  ) {}

  async execute(sessionId: string): Promise<StartedSession> {
    const session = await findSession(this.store, sessionId);
    if (session.launched) {
      throw refused(`session ${sessionId} has an agentctl the backend launched, which holds its tokens; start a session with launch: false instead`);
    }
    if (session.status === 'stopped') throw refused(`session ${sessionId} is stopped; start a new one`);
    if (session.status === 'live') {
      throw refused(`session ${sessionId} has an agentctl linked now; stop that agentctl (or the client running it) first, or start a new session`);
    }
    const sessionToken = this.ids.newToken();
    const next = {
      ...session,
      session_token_hash: hashToken(sessionToken),
      session_verifier: this.proof.verifierFor(sessionToken),
      updated_at: this.clock.isoNow(),
    };
    await this.store.saveSession(next);
    this.logger.info({ session_id: sessionId, task_id: session.task_id }, 'session token reissued; the old one is revoked');
    return {
      session_id: next.session_id,
      task_id: next.task_id,
      workspace_id: next.workspace_id,
      surface: next.surface,
      profile: next.profile,
      status: next.status,
      agentctl: { backend_url: this.backendUrl.get(), session_token: sessionToken },
    };
  }
}

function refused(message: string): ToolportError {
  return new ToolportError('SESSION_NOT_REISSUABLE', message);
}
