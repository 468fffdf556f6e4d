import type { CatalogSnapshot } from '../../domain/catalog';
import { expandDelta, isDeltaPayload } from '../../domain/catalog-delta';
import type { Violation } from '../../domain/errors';
import { checkSnapshot, decideSnapshot, type AppliedState } from '../../domain/snapshot-application';
import type { PushReply } from '../ports/backend-link';
import type { Logger } from '../ports/logger';
import type { Settings } from '../settings';
import type { HeldSchemaMemo } from './held-schema-memo';
import { buildView } from './registry-view';
import type { AgentctlSession } from './session-identity';
import type { ToolRegistry } from './tool-registry';

export type ApplyOutcome = 'applied' | 'unchanged' | 'stale';

export type ApplySnapshotResult = { ok: true; outcome: ApplyOutcome; generation: string; revision: number } | { ok: false; violations: Violation[] };

/**
 * Where a snapshot came from: the authenticated backend link (a pull, a push, the launch) or
 * the control API, which an operator drives by hand and which may never move the agentctl to a
 * generation its link did not deliver.
 */
export type SnapshotSource = 'link' | 'control';

/**
 * docs/agentctl.md apply: malformed → violations and nothing changes (checked before staleness);
 * stale → nothing stored; otherwise the snapshot is stored in one swap, `applied` when this
 * session's visible tools changed (the sessions must be told), else `unchanged`. Link
 * snapshots are compared with the last one the link delivered, which a control-API snapshot
 * never moves; a control-API snapshot is stale unless it is of the generation the link
 * delivered last. A `catalog.push` may be a delta on what the link delivered last.
 */
export class ApplySnapshot {
  /** The last snapshot the link delivered (a delta's base), and what the agentctl held then. */
  private fromLink: { snapshot: CatalogSnapshot; state: AppliedState } | null = null;

  constructor(
    private readonly registry: ToolRegistry,
    private readonly session: AgentctlSession,
    private readonly schemas: HeldSchemaMemo,
    private readonly settings: Pick<Settings, 'toolPrefix'>,
    private readonly logger: Logger,
  ) {}

  execute(value: unknown, source: SnapshotSource = 'link'): ApplySnapshotResult {
    this.schemas.beginCheck();
    const result = this.apply(value, source);
    if (result.ok && result.outcome !== 'stale') this.schemas.keepChecked();
    else this.schemas.dropChecked();
    return result;
  }

  /** A `catalog.push` from the link: a full snapshot, or a delta on the one it delivered last. */
  push(value: unknown): PushReply {
    if (!isDeltaPayload(value)) return this.reply(this.execute(value, 'link'));
    const expansion = expandDelta(this.fromLink?.snapshot ?? null, value);
    const held = this.registry.current().state;
    switch (expansion.kind) {
      case 'malformed':
        return { ok: false, reason: describe(expansion.violations) };
      case 'stale':
        return { ok: true, answer: { outcome: 'stale', generation: held?.generation ?? '', revision: held?.revision ?? 0 } };
      case 'base_mismatch': {
        const base = this.fromLink?.snapshot;
        this.logger.debug({ base_generation: base?.generation, base_revision: base?.revision }, 'delta on another revision: asking for the full snapshot');
        return { ok: true, answer: { outcome: 'base_mismatch', generation: base?.generation ?? '', revision: base?.revision ?? 0 } };
      }
      case 'snapshot':
        return this.reply(this.execute(expansion.value, 'link'));
    }
  }

  private apply(value: unknown, source: SnapshotSource): ApplySnapshotResult {
    const base = source === 'link' ? (this.fromLink?.snapshot ?? this.registry.current().snapshot) : this.registry.current().snapshot;
    const check = checkSnapshot(value, this.settings.toolPrefix, this.schemas, base);
    if (!check.ok) return { ok: false, violations: check.violations };
    const identity = this.session.current();
    if (identity === null) {
      return { ok: false, violations: [{ path: '', message: 'agentctl does not know its session yet; retry once it is connected' }] };
    }
    const current = this.registry.current();
    const held = current.state;
    if (source === 'control' && (this.fromLink === null || this.fromLink.snapshot.generation !== check.snapshot.generation))
      return this.stale(check.snapshot, held);
    // A link snapshot is compared with what the link delivered last; what it shows, with what the agent sees now.
    const comparedWith =
      source === 'link' && held !== null && this.fromLink !== null
        ? { ...held, generation: this.fromLink.state.generation, revision: this.fromLink.state.revision }
        : held;
    const decision = decideSnapshot(comparedWith, check.snapshot, identity.surface);
    if (decision.outcome === 'stale') return this.stale(check.snapshot, held);
    this.registry.swap(buildView(check.snapshot, decision.state));
    if (source === 'link') this.fromLink = { snapshot: check.snapshot, state: decision.state };
    const { generation, revision } = decision.state;
    this.logger.info({ outcome: decision.outcome, generation, revision, tools: check.snapshot.tools.length, source }, 'snapshot stored');
    return { ok: true, outcome: decision.outcome, generation, revision };
  }

  private stale(incoming: CatalogSnapshot, held: AppliedState | null): ApplySnapshotResult {
    this.logger.debug({ generation: incoming.generation, revision: incoming.revision }, 'stale snapshot ignored');
    return { ok: true, outcome: 'stale', generation: held?.generation ?? '', revision: held?.revision ?? 0 };
  }

  private reply(result: ApplySnapshotResult): PushReply {
    if (!result.ok) return { ok: false, reason: describe(result.violations) };
    return { ok: true, answer: { outcome: result.outcome, generation: result.generation, revision: result.revision } };
  }
}

function describe(violations: Violation[]): string {
  return `malformed snapshot: ${violations
    .slice(0, 5)
    .map((v) => `${v.path}: ${v.message}`)
    .join('; ')}`;
}
