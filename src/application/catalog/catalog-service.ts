import type { CatalogSnapshot } from '../../domain/catalog';
import { CatalogRevisions, catalogTools, formatGeneration } from '../../domain/catalog-revisions';
import type { IdGenerator } from '../ports/id-generator';
import type { Logger } from '../ports/logger';
import type { PluginStore } from '../ports/plugin-store';
import type { Settings } from '../settings';

export type CatalogListener = (snapshot: CatalogSnapshot) => void;

/**
 * The one writer of the catalog for this backend start: recompute() rebuilds it from the
 * stored records, and listeners hear of every revision that advanced (and of nothing else).
 */
export class CatalogService {
  private readonly listeners = new Set<CatalogListener>();

  constructor(
    private readonly revisions: CatalogRevisions,
    private readonly store: PluginStore,
    private readonly settings: Settings,
    private readonly logger: Logger,
  ) {}

  /** Opens this start's generation: increments the stored boot counter once. */
  static forNewGeneration(store: PluginStore, ids: IdGenerator, settings: Settings, logger: Logger): CatalogService {
    const generation = formatGeneration(store.incrementBootCounter(), ids.randomHex(8));
    return new CatalogService(new CatalogRevisions(generation), store, settings, logger);
  }

  current(): CatalogSnapshot {
    return this.revisions.current();
  }

  /** Rebuilds from the active records; returns whether the revision advanced. */
  recompute(): boolean {
    const { changed, snapshot } = this.revisions.offer(catalogTools(this.store.listPlugins(), this.settings.toolPrefix));
    if (!changed) return false;
    this.logger.info({ generation: snapshot.generation, revision: snapshot.revision, tools: snapshot.tools.length }, 'catalog revision');
    for (const listener of [...this.listeners]) {
      try {
        listener(snapshot);
      } catch (error) {
        this.logger.error({ err: error instanceof Error ? error.message : String(error) }, 'catalog listener failed');
      }
    }
    return true;
  }

  /** Registers a listener for advanced revisions; returns the function that removes it. */
  onChange(listener: CatalogListener): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }
}
