import type { CatalogSnapshot } from '../../domain/catalog';
import { catalogDelta, toolContentHash, type CatalogDelta } from '../../domain/catalog-delta';
import { viewKey, viewSnapshot, type CatalogPolicy, type ScopeView } from '../../domain/scopes';
import { sha256Hex } from '../../domain/tokens';

/** A view's snapshot at one revision, and a hash that changes exactly when its tools do. */
export interface ViewAt {
  snapshot: CatalogSnapshot;
  hash: string;
}

interface Revision {
  snapshot: CatalogSnapshot;
  policy: CatalogPolicy;
  /** Per view key, computed on first use. */
  views: Map<string, ViewAt>;
  /** Per view key and base revision: the delta from that base to this revision. */
  deltas: Map<string, CatalogDelta | undefined>;
}

/**
 * The last few revisions of the catalog with the scopes and profiles stored at each, so a
 * session's view can be rebuilt at the revision it holds (a session whose tools a change left
 * alone gets no push and stays on its older revision). Each view's snapshot and each delta is
 * computed once, however many sessions share it.
 */
export class ViewHistory {
  private readonly revisions = new Map<string, Revision>();

  constructor(private readonly size: number) {}

  /** Keeps `snapshot` with the policy stored at it (a revision already kept is left as it is). */
  remember(snapshot: CatalogSnapshot, policy: CatalogPolicy): void {
    const key = keyOf(snapshot.generation, snapshot.revision);
    if (this.revisions.has(key)) return;
    this.revisions.set(key, { snapshot, policy, views: new Map(), deltas: new Map() });
    for (const old of this.revisions.keys()) {
      if (this.revisions.size <= this.size) break;
      this.revisions.delete(old);
    }
  }

  has(generation: string, revision: number): boolean {
    return this.revisions.has(keyOf(generation, revision));
  }

  /** The view at a kept revision; undefined when that revision is not kept. */
  view(generation: string, revision: number, view: ScopeView): ViewAt | undefined {
    const at = this.revisions.get(keyOf(generation, revision));
    if (!at) return undefined;
    const key = viewKey(view);
    let found = at.views.get(key);
    if (!found) {
      const snapshot = viewSnapshot(at.snapshot, at.policy, view);
      found = { snapshot, hash: toolsHash(snapshot) };
      at.views.set(key, found);
    }
    return found;
  }

  /** The view's delta from a kept `baseRevision` to the kept `to`; undefined when either is not kept. */
  delta(view: ScopeView, baseRevision: number, to: CatalogSnapshot): CatalogDelta | undefined {
    const at = this.revisions.get(keyOf(to.generation, to.revision));
    if (!at) return undefined;
    const key = `${viewKey(view)}\u0000${baseRevision}`;
    if (!at.deltas.has(key)) {
      const base = this.view(to.generation, baseRevision, view);
      const now = this.view(to.generation, to.revision, view);
      at.deltas.set(key, base && now ? catalogDelta(base.snapshot, now.snapshot) : undefined);
    }
    return at.deltas.get(key);
  }
}

function keyOf(generation: string, revision: number): string {
  return `${generation}/${revision}`;
}

/** The tools' content hashes in order, hashed: each tool's own hash is computed once per tool object. */
function toolsHash(snapshot: CatalogSnapshot): string {
  return sha256Hex(snapshot.tools.map(toolContentHash).join('\n'));
}
