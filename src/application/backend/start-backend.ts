import type { ApprovalDesk } from '../approvals/approval-desk';
import type { CatalogFanOut } from '../catalog/catalog-fan-out';
import type { BootPlugins } from '../plugins/boot-plugins';
import type { PluginSupervision } from '../plugins/plugin-supervision';
import type { ServerToolPins } from '../plugins/server-tool-pins';
import type { Replication } from '../ports/replication';
import type { BackendUrl } from '../sessions/backend-url';
import type { PruneSessions } from '../sessions/prune-sessions';
import type { ReconcileSessions } from '../sessions/reconcile-sessions';
import type { OtherReplicas } from './other-replicas';

/**
 * Starts the backend once its listener is up and this start's catalog generation is open
 * (docs/operations.md §10): follow agentctls an earlier backend left running, supervision,
 * MCP servers' tool lists and catalog changes, then start the stored plugins (it resolves once each is active or in
 * error). A replica joining live ones leaves their sessions and records to them: it only
 * starts its own copies. Then it follows the other replicas' changes, if there are any, and
 * removes the sessions past their retention, now and periodically. The approval requests an
 * earlier run of this backend held are withdrawn first: their calls are gone (docs/approvals.md).
 */
export class StartBackend {
  constructor(
    private readonly url: BackendUrl,
    private readonly replication: Replication,
    private readonly sessions: ReconcileSessions,
    private readonly supervision: PluginSupervision,
    private readonly fanOut: CatalogFanOut,
    private readonly boot: BootPlugins,
    private readonly others: OtherReplicas,
    private readonly prune: PruneSessions,
    private readonly approvals: ApprovalDesk,
    /** Follows MCP servers' tool lists against their pinned tools, from before the first start. */
    private readonly pins?: Pick<ServerToolPins, 'execute'>,
  ) {}

  async execute(backendUrl: string): Promise<void> {
    this.url.set(backendUrl);
    await this.approvals.start();
    const joined = this.replication.joinedOthers();
    if (!joined) await this.sessions.execute();
    this.supervision.execute();
    this.pins?.execute();
    this.fanOut.execute();
    if (joined) await this.others.startOwnCopies();
    else await this.boot.execute();
    await this.others.follow();
    await this.prune.start();
  }
}
