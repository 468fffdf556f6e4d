import type { CatalogFanOut } from '../catalog/catalog-fan-out';
import type { ConfigurePlugin } from '../plugins/configure-plugin';
import type { PluginSupervision } from '../plugins/plugin-supervision';
import type { ServerToolPins } from '../plugins/server-tool-pins';
import type { AgentctlLauncher } from '../ports/agentctl-launcher';
import type { PluginRuntime } from '../ports/plugin-runtime';
import type { Replication } from '../ports/replication';
import type { PruneSessions } from '../sessions/prune-sessions';
import type { SessionLiveness } from '../sessions/session-liveness';
import type { StopAllSessions } from '../sessions/stop-all-sessions';
import type { OtherReplicas } from './other-replicas';

/**
 * Stops the backend, in the reverse order of its start (docs/operations.md §10): leave the
 * other replicas, stop removing sessions past retention and stop pushing catalog changes;
 * stop following agentctl exits, then stop
 * the agentctls this backend launched unless another replica is live to take them over;
 * stop following supervision, then the plugins, and wait for a configuration change in
 * flight. What the adapters hold (the Host API, the store, the logs, the spans) is closed
 * after this by the composition, the store last.
 */
export class StopBackend {
  constructor(
    private readonly others: OtherReplicas,
    private readonly fanOut: CatalogFanOut,
    private readonly liveness: SessionLiveness,
    private readonly launcher: AgentctlLauncher,
    private readonly replication: Replication,
    private readonly sessions: StopAllSessions,
    private readonly supervision: PluginSupervision,
    private readonly runtime: PluginRuntime,
    private readonly configure: ConfigurePlugin,
    private readonly prune: PruneSessions,
    /** Stops following MCP servers' tool lists once the plugins are stopped. */
    private readonly pins?: Pick<ServerToolPins, 'dispose'>,
  ) {}

  async execute(): Promise<void> {
    // No copy is started for another replica's change once shutdown began, and this replica
    // deregisters first: replicas stopping together each see the others that stay, never one
    // that is itself leaving, so the last to go stops every agentctl.
    await this.others.leave();
    await this.prune.dispose();
    this.fanOut.dispose();
    await this.liveness.dispose();
    this.launcher.dispose();
    // While another replica is live, this one's agentctls fail over to it instead.
    if (!(await this.replication.othersLive())) await this.sessions.execute();
    await this.supervision.dispose();
    await this.runtime.stopAll();
    await this.pins?.dispose();
    await this.configure.settled();
  }
}
