import type { CatalogSnapshot, CatalogTool } from '../../domain/catalog';
import { NOTHING_VISIBLE, type AppliedState } from '../../domain/snapshot-application';
import { BUILT_IN_TOOLS, type ListedTool } from './built-in-tools';

/**
 * One immutable state of the tool registry: everything the agent's list and calls read,
 * built completely before it is published so a reader never sees half of a swap.
 */
export interface RegistryView {
  /** Null until a first snapshot was applied. */
  readonly snapshot: CatalogSnapshot | null;
  readonly state: AppliedState | null;
  /** Changes exactly when the visible plugin tools change (also defined before any snapshot). */
  readonly fingerprint: string;
  /** Built-ins first, then the plugin tools visible on the surface, in catalog order. */
  readonly listing: readonly ListedTool[];
  /** Visible plugin tools by exposed name. */
  readonly byName: ReadonlyMap<string, CatalogTool>;
}

/** Before any snapshot no plugin tool is visible, the same as an empty catalog. */
export const EMPTY_VIEW: RegistryView = {
  snapshot: null,
  state: null,
  fingerprint: NOTHING_VISIBLE,
  listing: BUILT_IN_TOOLS,
  byName: new Map(),
};

export function buildView(snapshot: CatalogSnapshot, state: AppliedState): RegistryView {
  const visible = state.visible;
  return {
    snapshot,
    state,
    fingerprint: state.fingerprint,
    listing: [...BUILT_IN_TOOLS, ...visible],
    byName: new Map(visible.map((tool) => [tool.exposed_name, tool])),
  };
}
