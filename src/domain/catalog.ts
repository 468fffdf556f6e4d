import type { AgentToolDeclaration } from './manifest';

/**
 * One tool in the catalog snapshot (docs/catalog-and-sessions.md §1): its declaration as the manifest gives it, under
 * its local name, with the plugin it comes from and the name agents see. Absent optional fields are omitted.
 */
export interface CatalogTool extends Omit<AgentToolDeclaration, 'name'> {
  plugin_id: string;
  plugin_version: string;
  local_name: string;
  exposed_name: string;
}

/** The backend's authoritative view of every active plugin's tools (docs/catalog-and-sessions.md §1). */
export interface CatalogSnapshot {
  /** `<12-digit boot counter>-<8 hex>`. */
  generation: string;
  /** Starts at 1 in each generation; up by exactly one per content change. */
  revision: number;
  /** Sorted by `exposed_name`; `[]` when empty. */
  tools: CatalogTool[];
}
