import type { Violation } from '../../domain/errors';
import { checkSnapshot, decideSnapshot } from '../../domain/snapshot-application';
import type { Logger } from '../ports/logger';
import type { Settings } from '../settings';
import type { HeldSchemaMemo } from './held-schema-memo';
import { buildView } from './registry-view';
import type { AgentctlSession } from './session-identity';
import type { ToolRegistry } from './tool-registry';

export type ApplyOutcome = 'applied' | 'unchanged' | 'stale';

export type ApplySnapshotResult =
  | { ok: true; outcome: ApplyOutcome; generation: string; revision: number }
  | { ok: false; violations: Violation[] };

/**
 * CONTRACT §5 apply: malformed → violations and nothing changes (checked before staleness);
 * stale → nothing stored; otherwise the snapshot is stored in one swap, `applied` when this
 * session's visible tools changed (the sessions must be told), else `unchanged`.
 */
export class ApplySnapshot {
  constructor(
    private readonly registry: ToolRegistry,
    private readonly session: AgentctlSession,
    private readonly schemas: HeldSchemaMemo,
    private readonly settings: Pick<Settings, 'toolPrefix'>,
    private readonly logger: Logger,
  ) {}

  execute(value: unknown): ApplySnapshotResult {
    this.schemas.beginCheck();
    const result = this.apply(value);
    if (result.ok && result.outcome !== 'stale') this.schemas.keepChecked();
    else this.schemas.dropChecked();
    return result;
  }

  private apply(value: unknown): ApplySnapshotResult {
    const check = checkSnapshot(value, this.settings.toolPrefix, this.schemas, this.registry.current().snapshot);
    if (!check.ok) return { ok: false, violations: check.violations };
    const identity = this.session.current();
    if (identity === null) {
      return { ok: false, violations: [{ path: '', message: 'agentctl does not know its session yet; retry once it is connected' }] };
    }
    const current = this.registry.current();
    const decision = decideSnapshot(current.state, check.snapshot, identity.surface);
    if (decision.outcome === 'stale') {
      const state = current.state;
      this.logger.debug({ generation: check.snapshot.generation, revision: check.snapshot.revision }, 'stale snapshot ignored');
      return { ok: true, outcome: 'stale', generation: state?.generation ?? '', revision: state?.revision ?? 0 };
    }
    this.registry.swap(buildView(check.snapshot, decision.state));
    const { generation, revision } = decision.state;
    this.logger.info({ outcome: decision.outcome, generation, revision, tools: check.snapshot.tools.length }, 'snapshot stored');
    return { ok: true, outcome: decision.outcome, generation, revision };
  }
}
