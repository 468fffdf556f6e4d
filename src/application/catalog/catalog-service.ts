import type { ApprovalRule } from '../../domain/approvals';
import type { CatalogSnapshot } from '../../domain/catalog';
import type { PluginRecord } from '../../domain/plugin-record';
import { DEFAULT_POLICY, type CatalogPolicy } from '../../domain/scopes';
import { catalogTools, formatGeneration, initialCatalogState, offerCatalog } from '../../domain/catalog-revisions';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { PluginRecords, StoreTransaction } from '../ports/plugin-records';
import type { CommitCopies, Replication } from '../ports/replication';
import type { Settings } from '../settings';

/** Told each advanced revision with the scopes and profiles stored at it. */
export type CatalogListener = (snapshot: CatalogSnapshot, policy: CatalogPolicy) => void;
export type RecordsListener = (records: ReadonlyMap<string, PluginRecord>) => void;

/**
 * The one writer of the catalog. Every change to plugin records goes through commit(), which
 * recomputes the catalog in the same store transaction, so the revision a change causes is
 * stored with it; listeners hear of every revision that advanced, once it is committed (and of
 * nothing else). current() is the last committed snapshot, kept in memory, and policy() the
 * scopes and profiles stored at that same revision (docs/catalog-and-sessions.md, "Scopes"): a
 * scope or profile change committed through commit() raises the revision by exactly one.
 * approvalRules() are the approval rules (docs/approvals.md) as the last commit read them: they
 * move no revision, and a replica reads them again with every change it follows.
 */
export class CatalogService {
  private readonly listeners = new Set<CatalogListener>();
  private readonly recordListeners = new Set<RecordsListener>();
  private snapshot: CatalogSnapshot | null = null;
  private heldPolicy: CatalogPolicy = DEFAULT_POLICY;
  /** The plugin records as the last commit left them, and that commit's place in the order. */
  private records: ReadonlyMap<string, PluginRecord> = new Map();
  private rules: readonly ApprovalRule[] = [];
  private readonly rulesListeners = new Set<() => void>();
  private recordsOrder = 0;
  private commits = 0;

  constructor(
    private readonly store: PluginRecords,
    private readonly ids: IdGenerator,
    private readonly settings: Settings,
    private readonly logger: Logger,
    /** Whether replicas share the store (docs/operations.md §10); a backend alone has the null object. */
    private readonly replication: Replication,
  ) {}

  /**
   * Opens this start's generation: increments the stored boot counter once; revision 1, no
   * tools. On a store replicas share, only a cluster start does; a replica joining live ones
   * takes the stored generation and revision (docs/operations.md §10).
   */
  async open(): Promise<CatalogSnapshot> {
    const { state, adopted } = await this.replication.open((counter) => initialCatalogState(formatGeneration(counter, this.ids.randomHex(8))));
    if (!adopted) {
      this.snapshot = { generation: state.generation, revision: state.revision, tools: [] };
      [this.heldPolicy, this.rules] = await this.store.transaction(async (tx) => [await tx.catalogPolicy(), await tx.approvalRules()] as const);
      return this.snapshot;
    }
    // One below the stored revision, so the tools of that revision (computed from the stored
    // records and copies by the commit below) are published.
    this.snapshot = { generation: state.generation, revision: state.revision - 1, tools: [] };
    await this.commit(async () => undefined);
    return this.current();
  }

  current(): CatalogSnapshot {
    if (!this.snapshot) throw new Error('the catalog is not open yet');
    return this.snapshot;
  }

  /** The scopes and profiles stored at current()'s revision. */
  policy(): CatalogPolicy {
    return this.heldPolicy;
  }

  /**
   * Runs `work` in a store transaction, then recomputes the catalog from the records as `work`
   * left them, in that same transaction. Resolves with what `work` resolved with, once committed.
   */
  async commit<T>(work: (tx: StoreTransaction) => Promise<T>): Promise<T> {
    let copies: CommitCopies | undefined;
    const { result, outcome, policy, records, rules, order } = await this.store.transaction(async (raw) => {
      const order = ++this.commits;
      copies = this.replication.commit(raw);
      const { tx } = copies;
      const result = await work(tx);
      const records = await tx.listPlugins();
      const listed = await copies.listed(records);
      const stored = (await tx.catalogState()) ?? initialCatalogState(this.current().generation);
      const policy = await tx.catalogPolicy();
      const outcome = offerCatalog(stored, catalogTools(listed, this.settings.toolPrefix), policy);
      if (outcome.changed) await tx.saveCatalogState(outcome.state);
      const rules = await tx.approvalRules();
      return { result, outcome, policy, records, rules, order };
    });
    copies?.committed();
    if (order > this.recordsOrder) {
      this.recordsOrder = order;
      this.records = new Map(records.map((record) => [record.id, record]));
      const rulesChanged = JSON.stringify(rules) !== JSON.stringify(this.rules);
      this.rules = rules;
      this.tellRecords(this.records);
      if (rulesChanged) for (const listener of [...this.rulesListeners]) listener();
    }
    // Another replica may have raised the revision: a newer stored one is published too.
    this.publish(outcome.snapshot, policy);
    return result;
  }

  /**
   * The plugin record as the last commit left it, without a store read: what every tool call
   * checks (a call racing a change sees the record before or after it, never half of it).
   * Callers must not mutate it.
   */
  committedPlugin(pluginId: string): PluginRecord | undefined {
    return this.records.get(pluginId);
  }

  /** The approval rules as the last commit read them, in order. Callers must not mutate them. */
  approvalRules(): readonly ApprovalRule[] {
    return this.rules;
  }

  /**
   * Registers a listener told after a commit changed the approval rules (they move no revision,
   * so onChange() does not tell); returns the function that removes it.
   */
  onRulesChange(listener: () => void): () => void {
    this.rulesListeners.add(listener);
    return () => this.rulesListeners.delete(listener);
  }

  /** Recomputes the catalog from the stored records; resolves whether the revision advanced. */
  async recompute(): Promise<boolean> {
    const before = this.current().revision;
    await this.commit(async () => undefined);
    return this.current().revision !== before;
  }

  /** Registers a listener for advanced revisions; returns the function that removes it. */
  onChange(listener: CatalogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /**
   * Registers a listener for the plugin records as each commit left them (every status,
   * error and restart count change passes through a commit); returns the remover.
   */
  onRecords(listener: RecordsListener): () => void {
    this.recordListeners.add(listener);
    return () => this.recordListeners.delete(listener);
  }

  private tellRecords(records: ReadonlyMap<string, PluginRecord>): void {
    for (const listener of [...this.recordListeners]) {
      try {
        listener(records);
      } catch (error) {
        this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'plugin records listener failed');
      }
    }
  }

  /** Takes a committed snapshot unless a newer one already was (commits can resolve out of order). */
  private publish(snapshot: CatalogSnapshot, policy: CatalogPolicy): void {
    const held = this.snapshot;
    if (held && held.generation === snapshot.generation && held.revision >= snapshot.revision) return;
    this.snapshot = snapshot;
    this.heldPolicy = policy;
    this.logger.info({ generation: snapshot.generation, revision: snapshot.revision, tools: snapshot.tools.length }, 'catalog revision');
    for (const listener of [...this.listeners]) {
      try {
        listener(snapshot, policy);
      } catch (error) {
        this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'catalog listener failed');
      }
    }
  }
}
