import type { CatalogSnapshot } from '../../domain/catalog';

/** One agentctl that should hold the current snapshot. */
export interface PushTarget {
  sessionId: string;
  controlUrl: string;
  controlToken: string;
}

export type ApplyOutcome = 'applied' | 'unchanged' | 'stale';

/**
 * Delivers a snapshot to one agentctl's control API (`PUT /api/v1/mcp/plugin-tools`).
 */
export abstract class CatalogPublisher {
  /**
   * Pushes `snapshot` to `target` and resolves with the agentctl's outcome. Throws when the
   * target cannot be reached, refuses, or does not answer within `timeoutMs`.
   */
  abstract push(target: PushTarget, snapshot: CatalogSnapshot, timeoutMs: number): Promise<ApplyOutcome>;
}
