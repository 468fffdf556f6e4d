import type { JsonObject } from './json';
import type { ToolAnnotations } from './manifest';
import type { ToolSurface } from './surfaces';

/** One tool in the catalog snapshot (CONTRACT §4); absent optional fields are omitted. */
export interface CatalogTool {
  plugin_id: string;
  plugin_version: string;
  local_name: string;
  exposed_name: string;
  title?: string;
  description: string;
  surfaces: ToolSurface[];
  input_schema: JsonObject;
  output_schema?: JsonObject;
  annotations: ToolAnnotations;
}

/** The backend's authoritative view of every active plugin's tools (CONTRACT §4). */
export interface CatalogSnapshot {
  /** `<12-digit boot counter>-<8 hex>`. */
  generation: string;
  /** Starts at 1 in each generation; up by exactly one per content change. */
  revision: number;
  /** Sorted by `exposed_name`; `[]` when empty. */
  tools: CatalogTool[];
}
