import type { SessionRecord } from '../../domain/session';
import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { Logger } from '../ports/logger';
import type { Replication } from '../ports/replication';
import type { SessionStore } from '../ports/session-store';
import type { SessionLiveness } from './session-liveness';

/**
 * Takes over sessions whose agentctl no one follows: at backend start, after a crash, every
 * session; on a shared store, also those of a replica that is gone (docs/operations.md §10).
 * An agentctl that was launched and still runs keeps its session `live` (its token is accepted
 * when it reconnects) and is followed by pid and start time, so its exit marks the session
 * `dead`; one that is gone leaves its session `dead`. A session served by an agentctl started
 * elsewhere has its grace period to link. On a shared store this replica becomes the follower
 * each session names; an agentctl is never stopped here.
 */
export class ReconcileSessions {
  constructor(
    private readonly store: SessionStore,
    private readonly launcher: AgentctlLauncher,
    private readonly liveness: SessionLiveness,
    private readonly replication: Replication,
    private readonly logger: Logger,
  ) {}

  /** Every session not over that `orphaned` picks (all of them by default) and this process does not follow yet; answers how many it took. */
  async execute(orphaned: (session: SessionRecord) => boolean = () => true): Promise<number> {
    let taken = 0;
    for (const listed of await this.store.listSessions()) {
      if (!open(listed) || !orphaned(listed) || this.liveness.follows(listed.session_id)) continue;
      // Read again just before taking it: its agentctl may have linked to a replica meanwhile.
      const session = await this.store.getSession(listed.session_id);
      if (!session || !open(session) || !orphaned(session)) continue;
      await this.take(await this.claim(session));
      taken += 1;
    }
    return taken;
  }

  private async claim(session: SessionRecord): Promise<SessionRecord> {
    const self = this.replication.replicaId();
    if (self === null || session.agentctl_replica === self) return session;
    const claimed = { ...session, agentctl_replica: self };
    await this.store.saveSession(claimed);
    return claimed;
  }

  private async take(session: SessionRecord): Promise<void> {
    if (!session.launched) {
      await this.liveness.awaitRelink(session);
      return;
    }
    const exited = session.agentctl_pid === null ? undefined : this.launcher.watch({ pid: session.agentctl_pid, startTime: session.agentctl_start_time });
    if (!exited) {
      await this.liveness.markGone(session.session_id);
      return;
    }
    this.logger.info({ session_id: session.session_id, pid: session.agentctl_pid }, 'agentctl launched by an earlier backend or another replica still runs');
    this.liveness.follow(session.session_id, exited);
  }
}

function open(session: SessionRecord): boolean {
  return session.status === 'live' || session.status === 'starting';
}
