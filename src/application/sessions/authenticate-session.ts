import { ToolportError } from '../../domain/errors';
import type { SessionRecord } from '../../domain/session';
import { hashToken } from '../../domain/tokens';
import type { PluginStore } from '../ports/plugin-store';

/**
 * The session a session token belongs to, when that session is `starting` or `live`;
 * UNAUTHORIZED otherwise (unknown token, stopped or dead session). Only hashes are compared.
 */
export class AuthenticateSession {
  constructor(private readonly store: PluginStore) {}

  async execute(token: string): Promise<SessionRecord> {
    const session = token === '' ? undefined : await this.store.findSessionByTokenHash(hashToken(token));
    if (!session || (session.status !== 'live' && session.status !== 'starting')) {
      throw new ToolportError('UNAUTHORIZED', 'unknown or ended session');
    }
    return session;
  }
}
