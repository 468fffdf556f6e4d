import type { AgentctlHello } from '../ports/link-messages';
import type { BackendLink } from '../ports/backend-link';
import type { ApplySnapshot } from './apply-snapshot';
import type { PullCatalog } from './pull-catalog';

/**
 * Keeps the agentctl following its backend over the link: every catalog change the backend
 * pushes is applied, and after every hello the catalog is pulled (a change missed while the
 * link was down is caught up). A backend naming another session than the launch said is
 * fatal: `onMismatch` is told why, and the agentctl must not serve on.
 */
export class FollowBackend {
  constructor(
    private readonly link: BackendLink,
    private readonly pull: PullCatalog,
    private readonly applySnapshot: ApplySnapshot,
  ) {}

  /** Starts linking (in the background, reconnecting until the link is closed); returns at once. */
  execute(hello: AgentctlHello, onMismatch: (message: string) => void): void {
    this.link.onConnected((session) => {
      void this.pull.execute(session).then((result) => {
        if (result.kind === 'identity_mismatch') onMismatch(result.message);
      });
    });
    this.link.onPush((payload) => this.applySnapshot.push(payload));
    this.link.connect(hello);
  }
}
