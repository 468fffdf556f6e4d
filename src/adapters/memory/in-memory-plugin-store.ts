import type { ApprovalRequests, ApprovalSettlement } from '../../application/ports/approval-requests';
import type { HostEntries, HostEntryWrite } from '../../application/ports/host-entries';
import { PluginRecords, type StoreTransaction, type WorkspaceConfig } from '../../application/ports/plugin-records';
import type { SessionRemoval, SessionStore } from '../../application/ports/session-store';
import type { SealedValue } from '../../application/ports/secret-box';
import { SerialQueue } from '../../application/shared/serial-queue';
import type { ApprovalRule, StoredApprovalRequest } from '../../domain/approvals';
import type { CatalogState } from '../../domain/catalog-revisions';
import type { EntryOwner } from '../../domain/host-entry-owner';
import type { PluginRecord } from '../../domain/plugin-record';
import { isDefaultScope, normaliseProfile, normaliseScope, type PluginScope, type Profile, policyOf } from '../../domain/scopes';
import type { SessionRecord } from '../../domain/session';

/** The part of the store a transaction changes, copied for the transaction and swapped in on commit. */
interface Committed {
  plugins: Map<string, PluginRecord>;
  configs: Map<string, SealedValue>;
  /** Per plugin, each workspace's overrides. */
  workspaceConfigs: Map<string, Map<string, SealedValue>>;
  lastInstallSeq: number;
  catalog: CatalogState | undefined;
  scopes: Map<string, PluginScope>;
  profiles: Map<string, Profile>;
  approvalRules: ApprovalRule[];
  /** Plugins this draft deleted: their state and secrets go when it commits. */
  deleted: Set<string>;
}

/** The sessions as a transaction sees them: those stored, and those it saved, which are stored when it commits. */
interface SessionsDraft {
  stored: ReadonlyMap<string, SessionRecord>;
  saved: Map<string, SessionRecord>;
}

/**
 * The store (plugin records, sessions, Host entries, approval requests) held in memory (tests, and a backend run without a data dir). Values are
 * deep-copied in and out so callers can never change what is stored behind its back, just as
 * with a database; a transaction writes to a draft that replaces the committed state only when
 * it succeeds.
 */
export class InMemoryPluginStore extends PluginRecords implements SessionStore, HostEntries, ApprovalRequests {
  private committed: Committed = {
    plugins: new Map(),
    configs: new Map(),
    workspaceConfigs: new Map(),
    lastInstallSeq: 0,
    catalog: undefined,
    scopes: new Map(),
    profiles: new Map(),
    approvalRules: [],
    deleted: new Set(),
  };
  private readonly approvals = new Map<string, StoredApprovalRequest>();
  private readonly sessions = new Map<string, SessionRecord>();
  private readonly state = new EntryMap<string>();
  private readonly secrets = new EntryMap<SealedValue>();
  private readonly queue = new SerialQueue();
  private bootCounter = 0;
  private closed = false;

  transaction<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    return this.queue.run(async () => {
      this.assertOpen();
      const draft: Committed = {
        ...this.committed,
        plugins: new Map(this.committed.plugins),
        configs: new Map(this.committed.configs),
        workspaceConfigs: new Map([...this.committed.workspaceConfigs].map(([id, byWorkspace]) => [id, new Map(byWorkspace)])),
        scopes: new Map(this.committed.scopes),
        profiles: new Map(this.committed.profiles),
        deleted: new Set(),
      };
      const sessions: SessionsDraft = { stored: this.sessions, saved: new Map() };
      const result = await work(transactionOver(draft, sessions));
      this.assertOpen();
      for (const [id, session] of sessions.saved) this.sessions.set(id, session);
      for (const id of draft.deleted) {
        this.state.dropPlugin(id);
        this.secrets.dropPlugin(id);
      }
      this.committed = { ...draft, deleted: new Set() };
      return result;
    });
  }

  async listPlugins(): Promise<PluginRecord[]> {
    this.assertOpen();
    return listOf(this.committed);
  }

  async getPlugin(id: string): Promise<PluginRecord | undefined> {
    this.assertOpen();
    const record = this.committed.plugins.get(id);
    return record && copy(record);
  }

  async listSessions(): Promise<SessionRecord[]> {
    this.assertOpen();
    return [...this.sessions.values()].sort((a, b) => a.created_at.localeCompare(b.created_at)).map(copy);
  }

  async getSession(sessionId: string): Promise<SessionRecord | undefined> {
    this.assertOpen();
    const session = this.sessions.get(sessionId);
    return session && copy(session);
  }

  async findSessionByTokenHash(tokenHash: string): Promise<SessionRecord | undefined> {
    this.assertOpen();
    const session = [...this.sessions.values()].find((s) => s.session_token_hash === tokenHash);
    return session && copy(session);
  }

  async saveSession(session: SessionRecord): Promise<void> {
    this.assertOpen();
    this.sessions.set(session.session_id, copy(session));
  }

  async deleteSessions(which: SessionRemoval): Promise<number> {
    this.assertOpen();
    const statuses = new Set<string>(which.statuses.filter((status) => status === 'stopped' || status === 'dead'));
    const { updatedBefore } = which;
    // Newest first: by updated_at, then the later saved (the map keeps first-insertion order).
    const matching = [...this.sessions.values()]
      .map((session, order) => ({ session, order }))
      .filter(({ session }) => statuses.has(session.status) && (updatedBefore === undefined || session.updated_at < updatedBefore))
      .sort((a, b) => b.session.updated_at.localeCompare(a.session.updated_at) || b.order - a.order);
    const removed = matching.slice(which.keepNewest ?? 0);
    for (const { session } of removed) this.sessions.delete(session.session_id);
    return removed.length;
  }

  async getConfig(pluginId: string): Promise<SealedValue | undefined> {
    this.assertOpen();
    const config = this.committed.configs.get(pluginId);
    return config && copy(config);
  }

  async getWorkspaceConfig(pluginId: string, workspaceId: string): Promise<SealedValue | undefined> {
    this.assertOpen();
    const config = this.committed.workspaceConfigs.get(pluginId)?.get(workspaceId);
    return config && copy(config);
  }

  async listWorkspaceConfigs(pluginId: string): Promise<WorkspaceConfig[]> {
    this.assertOpen();
    return workspaceConfigsOf(this.committed, pluginId);
  }

  async getState(owner: EntryOwner, key: string): Promise<string | undefined> {
    this.assertOpen();
    return this.state.get(owner, key);
  }

  async putState(owner: EntryOwner, key: string, valueJson: string, maxKeys: number): Promise<HostEntryWrite> {
    this.assertOpen();
    if (!this.committed.plugins.has(owner.pluginId)) return 'no_plugin';
    return this.state.put(owner, key, valueJson, maxKeys);
  }

  async deleteState(owner: EntryOwner, key: string): Promise<boolean> {
    this.assertOpen();
    return this.state.delete(owner, key);
  }

  async listStateKeys(owner: EntryOwner, prefix: string, after: string | undefined, limit: number): Promise<string[]> {
    this.assertOpen();
    return this.state.keys(owner, prefix, after, limit);
  }

  async getSecret(owner: EntryOwner, key: string): Promise<SealedValue | undefined> {
    this.assertOpen();
    const value = this.secrets.get(owner, key);
    return value && copy(value);
  }

  async putSecret(owner: EntryOwner, key: string, value: SealedValue, maxKeys: number): Promise<HostEntryWrite> {
    this.assertOpen();
    if (!this.committed.plugins.has(owner.pluginId)) return 'no_plugin';
    return this.secrets.put(owner, key, copy(value), maxKeys);
  }

  async deleteSecret(owner: EntryOwner, key: string): Promise<boolean> {
    this.assertOpen();
    return this.secrets.delete(owner, key);
  }

  async addApprovalRequest(request: StoredApprovalRequest): Promise<void> {
    this.assertOpen();
    if (this.approvals.has(request.id)) throw new Error(`approval request ${request.id} exists already`);
    this.approvals.set(request.id, copy(request));
  }

  async getApprovalRequest(id: string): Promise<StoredApprovalRequest | undefined> {
    this.assertOpen();
    const request = this.approvals.get(id);
    return request && copy(request);
  }

  async listPendingApprovals(): Promise<StoredApprovalRequest[]> {
    this.assertOpen();
    return [...this.approvals.values()]
      .filter((request) => request.state === 'pending')
      .sort((a, b) => (a.created_at < b.created_at ? -1 : a.created_at > b.created_at ? 1 : a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
      .map(copy);
  }

  async settleApprovalRequest(id: string, to: ApprovalSettlement): Promise<{ moved: boolean; request: StoredApprovalRequest } | undefined> {
    this.assertOpen();
    const request = this.approvals.get(id);
    if (!request) return undefined;
    if (request.state !== 'pending') return { moved: false, request: copy(request) };
    const settled = { ...request, ...to };
    this.approvals.set(id, settled);
    return { moved: true, request: copy(settled) };
  }

  async withdrawApprovalRequests(holder: string | null): Promise<number> {
    this.assertOpen();
    let withdrawn = 0;
    for (const request of this.approvals.values()) {
      if (request.state !== 'pending' || (holder !== null && request.holder !== holder)) continue;
      this.approvals.set(request.id, { ...request, state: 'withdrawn' });
      withdrawn += 1;
    }
    return withdrawn;
  }

  async deleteSettledApprovals(expiredBefore: string): Promise<number> {
    this.assertOpen();
    let removed = 0;
    for (const request of [...this.approvals.values()]) {
      if (request.state === 'pending' || !(request.expires_at < expiredBefore)) continue;
      this.approvals.delete(request.id);
      removed += 1;
    }
    return removed;
  }

  async incrementBootCounter(): Promise<number> {
    this.assertOpen();
    this.bootCounter += 1;
    return this.bootCounter;
  }

  async close(): Promise<void> {
    this.closed = true;
  }

  private assertOpen(): void {
    if (this.closed) throw new Error('the plugin store is closed');
  }
}

function transactionOver(draft: Committed, sessions: SessionsDraft): StoreTransaction {
  return {
    listPlugins: async () => listOf(draft),
    getPlugin: async (id) => {
      const record = draft.plugins.get(id);
      return record && copy(record);
    },
    savePlugin: async (record) => {
      draft.plugins.set(record.id, copy(record));
      draft.lastInstallSeq = Math.max(draft.lastInstallSeq, record.install_seq);
    },
    deletePlugin: async (id) => {
      draft.plugins.delete(id);
      draft.configs.delete(id);
      draft.workspaceConfigs.delete(id);
      draft.scopes.delete(id);
      draft.deleted.add(id);
    },
    catalogPolicy: async () => policyOf(draft.scopes, draft.profiles.values()),
    savePluginScope: async (pluginId, scope) => {
      const normal = normaliseScope(scope);
      if (isDefaultScope(normal)) draft.scopes.delete(pluginId);
      else draft.scopes.set(pluginId, normal);
    },
    saveProfile: async (profile) => {
      draft.profiles.set(profile.name, normaliseProfile(profile));
    },
    deleteProfile: async (name) => {
      draft.profiles.delete(name);
    },
    approvalRules: async () => copy(draft.approvalRules),
    saveApprovalRules: async (rules) => {
      draft.approvalRules = copy([...rules]);
    },
    saveSession: async (session) => {
      sessions.saved.set(session.session_id, copy(session));
    },
    sessionsUsingProfile: async (name) =>
      [...new Map([...sessions.stored, ...sessions.saved]).values()]
        .filter((s) => s.profile === name && s.status !== 'stopped')
        .sort((a, b) => a.created_at.localeCompare(b.created_at))
        .map((s) => s.session_id),
    getConfig: async (pluginId) => {
      const config = draft.configs.get(pluginId);
      return config && copy(config);
    },
    saveConfig: async (pluginId, config) => {
      draft.configs.set(pluginId, copy(config));
    },
    getWorkspaceConfig: async (pluginId, workspaceId) => {
      const config = draft.workspaceConfigs.get(pluginId)?.get(workspaceId);
      return config && copy(config);
    },
    saveWorkspaceConfig: async (pluginId, workspaceId, config) => {
      const byWorkspace = new Map(draft.workspaceConfigs.get(pluginId));
      if (config) byWorkspace.set(workspaceId, copy(config));
      else byWorkspace.delete(workspaceId);
      if (byWorkspace.size > 0) draft.workspaceConfigs.set(pluginId, byWorkspace);
      else draft.workspaceConfigs.delete(pluginId);
    },
    listWorkspaceConfigs: async (pluginId) => workspaceConfigsOf(draft, pluginId),
    nextInstallSeq: async () => {
      draft.lastInstallSeq += 1;
      return draft.lastInstallSeq;
    },
    catalogState: async () => draft.catalog && { ...draft.catalog },
    saveCatalogState: async (state) => {
      draft.catalog = { ...state };
    },
  };
}

function listOf(state: Committed): PluginRecord[] {
  return [...state.plugins.values()].sort((a, b) => a.install_seq - b.install_seq).map(copy);
}

function workspaceConfigsOf(state: Committed, pluginId: string): WorkspaceConfig[] {
  return [...(state.workspaceConfigs.get(pluginId) ?? new Map<string, SealedValue>())]
    .sort(([a], [b]) => Buffer.compare(Buffer.from(a), Buffer.from(b)))
    .map(([workspaceId, config]) => ({ workspaceId, config: copy(config) }));
}

function copy<T>(value: T): T {
  return structuredClone(value);
}

/** One kind of Host entry (state or secrets), per owner, keys compared by their UTF-8 bytes. */
class EntryMap<V> {
  /** Plugin id → the owner's scope and scope id as JSON text → key → value. */
  private readonly byPlugin = new Map<string, Map<string, Map<string, V>>>();

  get(owner: EntryOwner, key: string): V | undefined {
    return this.entriesOf(owner)?.get(key);
  }

  put(owner: EntryOwner, key: string, value: V, maxKeys: number): HostEntryWrite {
    const entries = this.entriesOf(owner) ?? new Map<string, V>();
    if (!entries.has(key) && entries.size >= maxKeys) return 'limit_reached';
    entries.set(key, value);
    const owners = this.byPlugin.get(owner.pluginId) ?? new Map<string, Map<string, V>>();
    owners.set(ownerKey(owner), entries);
    this.byPlugin.set(owner.pluginId, owners);
    return 'stored';
  }

  delete(owner: EntryOwner, key: string): boolean {
    return this.entriesOf(owner)?.delete(key) ?? false;
  }

  keys(owner: EntryOwner, prefix: string, after: string | undefined, limit: number): string[] {
    const prefixBytes = Buffer.from(prefix);
    const afterBytes = after === undefined ? undefined : Buffer.from(after);
    return [...(this.entriesOf(owner)?.keys() ?? [])]
      .map((key) => ({ key, bytes: Buffer.from(key) }))
      .filter(({ bytes }) => bytes.subarray(0, prefixBytes.length).equals(prefixBytes) && (!afterBytes || Buffer.compare(bytes, afterBytes) > 0))
      .sort((a, b) => Buffer.compare(a.bytes, b.bytes))
      .slice(0, limit)
      .map(({ key }) => key);
  }

  dropPlugin(pluginId: string): void {
    this.byPlugin.delete(pluginId);
  }

  private entriesOf(owner: EntryOwner): Map<string, V> | undefined {
    return this.byPlugin.get(owner.pluginId)?.get(ownerKey(owner));
  }
}

function ownerKey(owner: EntryOwner): string {
  return JSON.stringify([owner.scope, owner.scopeId]);
}
