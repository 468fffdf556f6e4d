import { ToolportError } from '../../domain/errors';
import type { SessionRecord } from '../../domain/session';
import { hashToken } from '../../domain/tokens';
import type { PluginStore } from '../ports/plugin-store';

/**
 * The session a session token belongs to, unless it is `stopped`: a `dead` session's agentctl
 * that links again makes it live (CONTRACT §5). UNAUTHORIZED otherwise (unknown token, stopped
 * session). Only hashes are compared.
 */
export class AuthenticateSession {
  constructor(private readonly store: PluginStore) {}

  async execute(token: string): Promise<SessionRecord> {
    const session = token === '' ? undefined : await this.store.findSessionByTokenHash(hashToken(token));
    if (!session || session.status === 'stopped') {
      throw new ToolportError('UNAUTHORIZED', 'unknown or ended session');
    }
    return session;
  }
}
