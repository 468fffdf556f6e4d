import type { HostSessions } from '../../application/host/host-sessions';
import { HostAccess, type HostGrant, type HostProfile } from '../../application/ports/host-access';

/**
 * Host grants with no listener (tests, and backends whose plugins are in-memory): a grant
 * opens a Host session, and a test drives HostRequests with its token as the process would.
 */
export class InMemoryHostAccess extends HostAccess {
  /** Every grant not yet released, newest last, with the profile it was made for. */
  readonly open: Array<{ profile: HostProfile; grant: HostGrant }> = [];
  private next = 1;
  private closed = false;

  constructor(private readonly sessions: HostSessions) {
    super();
  }

  async grant(profile: HostProfile): Promise<HostGrant> {
    // As the gRPC server: a closed Host API grants nothing, so a start after shutdown fails.
    if (this.closed) throw new Error('the Host API is closed');
    const session = this.sessions.open(profile);
    const grant: HostGrant = {
      address: `memory:${this.next++}`,
      token: session.token,
      admit: (call) => session.admit(call),
      release: async () => {
        session.close();
        const index = this.open.findIndex((entry) => entry.grant === grant);
        if (index >= 0) this.open.splice(index, 1);
      },
    };
    this.open.push({ profile, grant });
    return grant;
  }

  async close(): Promise<void> {
    this.closed = true;
    // A copy: each release takes its grant out of `open`.
    await Promise.all([...this.open].map((entry) => entry.grant.release()));
  }
}
