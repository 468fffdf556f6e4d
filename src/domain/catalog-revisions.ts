import type { CatalogSnapshot, CatalogTool } from './catalog';
import type { PluginRecord } from './plugin-record';

/** `<12-digit boot counter>-<8 hex>` (CONTRACT §4). */
export function formatGeneration(bootCounter: number, hex8: string): string {
  throw new Error(`not implemented yet: formatGeneration(${bootCounter}, ${hex8})`);
}

/** Orders generations: negative when a is older than b, 0 when equal. */
export function compareGenerations(a: string, b: string): number {
  throw new Error(`not implemented yet: compareGenerations(${a}, ${b})`);
}

/** The catalog tools of the active plugins among `records`, sorted by exposed name (§4). */
export function catalogTools(records: PluginRecord[], prefix: string): CatalogTool[] {
  throw new Error(`not implemented yet: catalogTools(${records.length}, ${prefix})`);
}

/**
 * The single writer of catalog revisions for one generation: offer() a freshly computed
 * tool list; the revision rises by exactly one when its content differs from the last one,
 * and stays when it is equivalent.
 */
export class CatalogRevisions {
  constructor(readonly generation: string) {}

  /** The current snapshot (revision 1 with `tools: []` before any offer). */
  current(): CatalogSnapshot {
    throw new Error('not implemented yet: CatalogRevisions.current');
  }

  /** Offers a recomputed tool list; `changed` says whether the revision advanced. */
  offer(tools: CatalogTool[]): { changed: boolean; snapshot: CatalogSnapshot } {
    throw new Error(`not implemented yet: CatalogRevisions.offer(${tools.length})`);
  }
}
