import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { ApprovalDesk, type SessionSaves } from '../../../src/application/approvals/approval-desk';
import type { CatalogService } from '../../../src/application/catalog/catalog-service';
import { Clock } from '../../../src/application/ports/clock';
import type { Replication } from '../../../src/application/ports/replication';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { CapturingLogger } from '../../support/capturing-logger';
import { LIVE_SESSION } from '../../support/invocation';

class SystemClock extends Clock {
  now(): number {
    return Date.now();
  }
}

/**
 * docs/approvals.md: with replicas, a decision made through any replica's API reaches the one
 * holding the call within a second, read from the shared store (nothing tells the holder).
 */
describe('ApprovalDesk on a shared store', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  function desk(store: InMemoryPluginStore): ApprovalDesk {
    const catalog = { onRecords: () => () => undefined, committedPlugin: () => undefined } as unknown as CatalogService;
    const replication = { replicaId: () => 'replica-a' } as unknown as Replication;
    const sessions: SessionSaves = { onChange: () => () => undefined };
    return new ApprovalDesk(
      store,
      catalog,
      new SystemClock(),
      { ...DEFAULT_SETTINGS, approvalTimeoutMs: 60_000 },
      replication,
      new CapturingLogger(),
      sessions,
    );
  }

  it('lets each held call learn a decision another replica stored within 1 s, wherever in the read period it lands', async () => {
    const store = new InMemoryPluginStore();
    const holder = desk(store);
    const outcomes = new Map<string, string>();
    const ids = ['c0', 'c1', 'c2', 'c3', 'c4', 'c5', 'c6'];
    const held = ids.map((id) =>
      holder
        .hold({
          invocationId: id,
          session: LIVE_SESSION,
          pluginId: 'acme.tools',
          tool: 'kandev_acme_tools_echo',
          arguments: {},
          signal: new AbortController().signal,
        })
        .then(
          (by) => outcomes.set(id, by),
          (error: { code: string }) => outcomes.set(id, error.code),
        ),
    );
    await jest.advanceTimersByTimeAsync(5_000);
    expect((await store.listPendingApprovals()).map((r) => r.id).sort()).toEqual(ids);
    expect(outcomes.size).toBe(0);
    for (const [index, id] of ids.entries()) {
      // Each decision lands at another point of the read period.
      await jest.advanceTimersByTimeAsync(170);
      const state = index % 2 === 0 ? 'approved' : 'denied';
      await store.settleApprovalRequest(id, { state, decided_by: 'admin', reason: 'from B' });
      await jest.advanceTimersByTimeAsync(1_000);
      expect(outcomes.get(id)).toBe(state === 'approved' ? 'admin' : 'APPROVAL_DENIED');
    }
    await Promise.all(held);
  });
});
