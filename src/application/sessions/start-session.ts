import type { StartedSession } from '../../api';
import { ToolportError } from '../../domain/errors';
import { DEFAULT_PROFILE_NAME, viewOf, viewSnapshot } from '../../domain/scopes';
import type { SessionIdentity, SessionRecord } from '../../domain/session';
import { hashToken } from '../../domain/tokens';
import type { CatalogService } from '../catalog/catalog-service';
import type { AgentctlLauncher, LaunchedAgentctl } from '../ports/agentctl-launcher';
import type { Clock } from '../ports/clock';
import type { IdGenerator } from '../ports/id-generator';
import type { LinkProof } from '../ports/link-proof';
import type { Logger } from '../ports/logger';
import type { PluginRecords } from '../ports/plugin-records';
import type { Replication } from '../ports/replication';
import type { SessionStore } from '../ports/session-store';
import { errorMessage } from '../shared/error-code';
import type { BackendUrl } from './backend-url';
import type { SessionChanges } from './session-changes';
import type { SessionLiveness } from './session-liveness';
import type { StartSessionRequest } from './start-session-input';

export type { StartedSession };

/**
 * Opens a task session. By default it launches an agentctl holding the current catalog and
 * answers once it serves MCP (AGENTCTL_START_FAILED otherwise, the session then `stopped`);
 * with `launch: false` it answers what an agentctl started elsewhere needs. Only the hash of
 * the session token is stored. The session is stored in the one store transaction that finds
 * its profile (UNKNOWN_PROFILE otherwise), so a profile deleted meanwhile, by this replica or
 * another, is either found in use or never given to the session (docs/catalog-and-sessions.md,
 * "Scopes").
 */
export class StartSession {
  constructor(
    private readonly records: PluginRecords,
    private readonly store: SessionStore,
    private readonly launcher: AgentctlLauncher,
    private readonly catalog: CatalogService,
    private readonly backendUrl: BackendUrl,
    private readonly ids: IdGenerator,
    private readonly clock: Clock,
    private readonly liveness: SessionLiveness,
    private readonly logger: Logger,
    private readonly proof: LinkProof,
    /** Whose id the session names as its agentctl's follower, on a shared store. */
    private readonly replication: Replication,
    /** Told of the new session: it is saved in a store transaction, which the observed store does not see. */
    private readonly changes: SessionChanges,
  ) {}

  async execute(request: StartSessionRequest): Promise<StartedSession> {
    const launch = request.launch !== false;
    const profile = request.profile ?? DEFAULT_PROFILE_NAME;
    const identity: SessionIdentity = {
      task_id: request.task_id,
      session_id: this.ids.newId(),
      workspace_id: request.workspace_id,
      surface: request.surface,
    };
    const sessionToken = this.ids.newToken();
    const now = this.clock.isoNow();
    const record: SessionRecord = {
      ...identity,
      profile,
      status: 'starting',
      session_token_hash: hashToken(sessionToken),
      session_verifier: this.proof.verifierFor(sessionToken),
      mcp_url: null,
      launched: launch,
      agentctl_pid: null,
      agentctl_start_time: null,
      agentctl_replica: this.replication.replicaId(),
      last_linked_at: null,
      link_down_since: null,
      created_at: now,
      updated_at: now,
    };
    await this.records.transaction(async (tx) => {
      // The store's profiles, not this replica's copy of the policy, which may lag another replica's change.
      if (!(await tx.catalogPolicy()).profiles.has(profile)) throw new ToolportError('UNKNOWN_PROFILE', `no profile ${JSON.stringify(profile)}`);
      await tx.saveSession(record);
    });
    this.changes.saved(record);
    this.logger.info({ session_id: identity.session_id, task_id: identity.task_id, surface: identity.surface, launch }, 'session starting');
    if (!launch) {
      return { ...answerFields(record), agentctl: { backend_url: this.backendUrl.get(), session_token: sessionToken } };
    }
    const mcpToken = this.ids.newToken();
    const launched = await this.launch(identity, record.profile, sessionToken, mcpToken);
    const current = await this.store.getSession(identity.session_id);
    if (current?.status !== 'starting' && current?.status !== 'live') {
      // Stopped while its agentctl was starting: the stop wins.
      await this.launcher.stop(launched);
      throw new ToolportError('AGENTCTL_START_FAILED', 'the session was stopped while its agentctl was starting');
    }
    const live = await this.update(identity.session_id, (s) => ({
      ...s,
      status: 'live',
      mcp_url: launched.mcpUrl,
      agentctl_pid: launched.pid,
      agentctl_start_time: launched.startTime,
    }));
    this.liveness.follow(identity.session_id, launched.exited);
    return { ...answerFields(live ?? record), mcp: { url: launched.mcpUrl, token: mcpToken } };
  }

  private async launch(identity: SessionIdentity, profile: string, sessionToken: string, mcpToken: string): Promise<LaunchedAgentctl> {
    try {
      return await this.launcher.launch({
        identity,
        backendUrl: this.backendUrl.get(),
        sessionToken,
        mcpToken,
        // Its view only, as every later pull and push (docs/catalog-and-sessions.md, "Scopes").
        snapshot: viewSnapshot(this.catalog.current(), this.catalog.policy(), viewOf({ ...identity, profile })),
      });
    } catch (error) {
      await this.update(identity.session_id, (s) => ({ ...s, status: 'stopped' }));
      this.logger.warn({ session_id: identity.session_id, reason: errorMessage(error) }, 'agentctl failed to start');
      if (error instanceof ToolportError && error.code === 'AGENTCTL_START_FAILED') throw error;
      throw new ToolportError('AGENTCTL_START_FAILED', `agentctl did not start: ${errorMessage(error)}`);
    }
  }

  private async update(sessionId: string, change: (session: SessionRecord) => SessionRecord): Promise<SessionRecord | undefined> {
    const session = await this.store.getSession(sessionId);
    if (!session) return undefined;
    const next = { ...change(session), updated_at: this.clock.isoNow() };
    await this.store.saveSession(next);
    return next;
  }
}

function answerFields(record: SessionRecord): Pick<StartedSession, 'session_id' | 'task_id' | 'workspace_id' | 'surface' | 'profile' | 'status'> {
  const { session_id, task_id, workspace_id, surface, profile, status } = record;
  return { session_id, task_id, workspace_id, surface, profile, status };
}
