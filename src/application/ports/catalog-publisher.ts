import type { CatalogSnapshot } from '../../domain/catalog';
import type { CatalogDelta } from '../../domain/catalog-delta';

/** One catalog change as it goes to an agentctl: the whole snapshot, or the delta from what it holds. */
export type CatalogPush = { snapshot: CatalogSnapshot } | { delta: CatalogDelta };

/**
 * An agentctl's answer to a push (docs/agentctl.md): the outcome and the generation and revision
 * it holds now. `base_mismatch` (additive): a delta built on another revision than the one it
 * holds, so it wants the full snapshot.
 */
export interface PushAnswer {
  outcome: 'applied' | 'unchanged' | 'stale' | 'base_mismatch';
  generation: string;
  revision: number;
}

/** Sends catalog changes to agentctls over the links they hold to this backend (§7 `catalog.push`). */
export abstract class CatalogPublisher {
  /** The sessions whose agentctl holds a link to this backend now. */
  abstract linkedSessions(): string[];

  /** Whether `sessionId`'s agentctl holds a link to this backend now. */
  abstract isLinked(sessionId: string): boolean;

  /**
   * Sends `push` to every session of `sessionIds` (serialised once for all of them) and
   * resolves, per session, with its answer or an Error saying why it has none (no link, the
   * link dropped, no answer within `timeoutMs`, refused). Never rejects.
   */
  abstract push(sessionIds: readonly string[], push: CatalogPush, timeoutMs: number): Promise<Map<string, PushAnswer | Error>>;

  /**
   * Sends `approval.marks` (docs/approvals.md, "Marked tools") to each linked session of `marks`:
   * the tools of its view an approval rule may hold. Resolves once each answered, or its link
   * dropped, or `timeoutMs` passed; an answer carries nothing, so none is reported. Never rejects.
   */
  abstract sendMarks(marks: ReadonlyMap<string, readonly string[]>, timeoutMs: number): Promise<void>;
}
