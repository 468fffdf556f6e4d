import type { JsonObject } from './json';

/** Where a tool is offered: the kinds of task session that see plugin tools (docs/plugin-protocol.md §2). */
export type ToolSurface = 'kanban-task' | 'office-task';

/** A tool's behaviour hints, every one present (the manifest's defaults applied). */
export interface ToolAnnotations {
  read_only_hint: boolean;
  destructive_hint: boolean;
  idempotent_hint: boolean;
  open_world_hint: boolean;
}

/** A tool as its plugin's manifest declares it, validated; `title` and `output_schema` are left out when it has none. */
export interface ToolDeclaration {
  title?: string;
  description: string;
  /** Sorted. */
  surfaces: ToolSurface[];
  input_schema: JsonObject;
  output_schema?: JsonObject;
  annotations: ToolAnnotations;
}

/** One tool of the catalog, under its local name and the name agents call it by (docs/http-api.md §5). */
export interface CatalogTool extends ToolDeclaration {
  plugin_id: string;
  plugin_version: string;
  local_name: string;
  exposed_name: string;
}

/** `GET /api/v1/catalog`: every active plugin's tools (docs/http-api.md §5). */
export interface Catalog {
  /** `<12-digit boot counter>-<8 hex>`: generations order the backend's starts. */
  generation: string;
  /** 1 at the start of a generation, up by exactly one per change of content. */
  revision: number;
  /** Sorted by `exposed_name`. */
  tools: CatalogTool[];
}
