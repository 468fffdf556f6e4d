import type { SessionIdentity } from '../../domain/session';
import type { BackendLink } from '../ports/backend-link';
import type { Logger } from '../ports/logger';
import type { ApplySnapshot, ApplySnapshotResult } from './apply-snapshot';
import type { AgentctlSession } from './session-identity';

export type PullResult = { kind: 'identity_mismatch'; message: string } | { kind: 'failed'; message: string } | { kind: 'pulled'; result: ApplySnapshotResult };

/**
 * Runs after each successful hello: confirms the backend's session identity (a mismatch is
 * fatal for the caller), then pulls the current snapshot and applies it.
 */
export class PullCatalog {
  constructor(
    private readonly link: BackendLink,
    private readonly session: AgentctlSession,
    private readonly applySnapshot: ApplySnapshot,
    private readonly logger: Logger,
  ) {}

  async execute(fromHello: SessionIdentity): Promise<PullResult> {
    const confirmed = this.session.confirm(fromHello);
    if (!confirmed.ok) return { kind: 'identity_mismatch', message: confirmed.message };
    let raw: unknown;
    try {
      raw = await this.link.listPluginTools();
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      this.logger.warn({ err: message }, 'catalog pull failed');
      return { kind: 'failed', message };
    }
    const result = this.applySnapshot.execute(raw);
    if (!result.ok) this.logger.error({ violations: result.violations.slice(0, 5) }, 'backend sent a malformed snapshot; kept the one held');
    return { kind: 'pulled', result };
  }
}
