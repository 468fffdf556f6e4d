import type { PluginStore } from '../../src/application/ports/plugin-store';
import type { ApprovalRule, StoredApprovalRequest } from '../../src/domain/approvals';
import { gate, storeUnderEach, type StoreFactory } from './store-under-test';

const RULES: ApprovalRule[] = [
  { workspace: 'prod', profile: '*', tools: 'destructive', mode: 'operator' },
  { workspace: '*', profile: 'default', tools: 'toolport_git_*', mode: 'client' },
];

function request(id: string, createdAt: string, holder: string | null = null): StoredApprovalRequest {
  return {
    id,
    session_id: 's1',
    task_id: 't1',
    workspace_id: 'prod',
    profile: 'default',
    tool: 'toolport_git_delete_repo',
    plugin_id: 'git',
    arguments_sha256: 'a'.repeat(64),
    created_at: createdAt,
    expires_at: '2026-01-01T00:05:00.000Z',
    state: 'pending',
    decided_by: null,
    reason: null,
    holder,
  };
}

/**
 * The approval rules a store transaction keeps and the approval requests the store keeps
 * (docs/approvals.md), over every store adapter, beside the records contract.
 */
export function describeApprovalStoreContract(rows: Array<[string, StoreFactory]>): void {
  describe.each(rows)('approval store contract: %s', (_name, factory) => {
    const under = storeUnderEach(factory);
    let store: PluginStore;
    const rules = () => store.transaction((tx) => tx.approvalRules());
    beforeEach(() => {
      store = under.subject().store;
    });

    it('holds no rules until some are saved, then the list in its order, replaced whole', async () => {
      expect(await rules()).toEqual([]);
      await store.transaction((tx) => tx.saveApprovalRules(RULES));
      expect(await rules()).toEqual(RULES);
      await store.transaction((tx) => tx.saveApprovalRules([RULES[1]!]));
      expect(await rules()).toEqual([RULES[1]]);
      await store.transaction((tx) => tx.saveApprovalRules([]));
      expect(await rules()).toEqual([]);
    });

    it('keeps no rules of a transaction that rejects', async () => {
      const held = gate();
      const failing = store.transaction(async (tx) => {
        await tx.saveApprovalRules(RULES);
        expect(await tx.approvalRules()).toEqual(RULES);
        held.open();
        throw new Error('refused');
      });
      await held.opened;
      await expect(failing).rejects.toThrow('refused');
      expect(await rules()).toEqual([]);
    });

    it('lists pending requests oldest first and reads any request by id', async () => {
      await store.addApprovalRequest(request('r-b', '2026-01-01T00:00:02.000Z'));
      await store.addApprovalRequest(request('r-a', '2026-01-01T00:00:02.000Z'));
      await store.addApprovalRequest(request('r-c', '2026-01-01T00:00:01.000Z'));
      expect((await store.listPendingApprovals()).map((r) => r.id)).toEqual(['r-c', 'r-a', 'r-b']);
      expect(await store.getApprovalRequest('r-a')).toEqual(request('r-a', '2026-01-01T00:00:02.000Z'));
      expect(await store.getApprovalRequest('nope')).toBeUndefined();
    });

    it('settles a pending request once: of two racing settlements exactly one moves it', async () => {
      await store.addApprovalRequest(request('r1', '2026-01-01T00:00:00.000Z'));
      const [first, second] = await Promise.all([
        store.settleApprovalRequest('r1', { state: 'approved', decided_by: 'admin', reason: 'ok' }),
        store.settleApprovalRequest('r1', { state: 'denied', decided_by: 'admin', reason: null }),
      ]);
      expect([first?.moved, second?.moved].sort()).toEqual([false, true]);
      const winner = first?.moved ? first : second;
      expect(await store.getApprovalRequest('r1')).toEqual(winner?.request);
      expect((await store.getApprovalRequest('r1'))?.state).toBe(first?.moved ? 'approved' : 'denied');
      expect(await store.listPendingApprovals()).toEqual([]);
      expect(await store.settleApprovalRequest('nope', { state: 'expired', decided_by: null, reason: null })).toBeUndefined();
    });

    it('withdraws the pending requests of one holder, or every pending one', async () => {
      await store.addApprovalRequest(request('r1', '2026-01-01T00:00:01.000Z', 'replica-a'));
      await store.addApprovalRequest(request('r2', '2026-01-01T00:00:02.000Z', 'replica-b'));
      await store.addApprovalRequest(request('r3', '2026-01-01T00:00:03.000Z', null));
      await store.addApprovalRequest(request('r4', '2026-01-01T00:00:04.000Z', 'replica-a'));
      await store.settleApprovalRequest('r4', { state: 'approved', decided_by: 'admin', reason: null });
      expect(await store.withdrawApprovalRequests('replica-a')).toBe(1);
      expect((await store.listPendingApprovals()).map((r) => r.id)).toEqual(['r2', 'r3']);
      expect(await store.withdrawApprovalRequests(null)).toBe(2);
      expect(await store.listPendingApprovals()).toEqual([]);
      expect((await store.getApprovalRequest('r1'))?.state).toBe('withdrawn');
      expect((await store.getApprovalRequest('r4'))?.state).toBe('approved');
    });

    it('removes the settled requests whose expiry is older than the bound, and never a pending one', async () => {
      const at = (expires: string, id: string) => ({ ...request(id, '2026-01-01T00:00:00.000Z'), expires_at: expires });
      await store.addApprovalRequest(at('2026-01-01T00:05:00.000Z', 'old-approved'));
      await store.addApprovalRequest(at('2026-01-01T00:05:00.000Z', 'old-denied'));
      await store.addApprovalRequest(at('2026-01-01T00:05:00.000Z', 'old-withdrawn'));
      await store.addApprovalRequest(at('2026-01-01T00:05:00.000Z', 'old-expired'));
      await store.addApprovalRequest(at('2026-01-01T00:05:00.000Z', 'old-pending'));
      await store.addApprovalRequest(at('2026-01-08T00:05:00.000Z', 'recent-approved'));
      await store.settleApprovalRequest('old-approved', { state: 'approved', decided_by: 'admin', reason: null });
      await store.settleApprovalRequest('old-denied', { state: 'denied', decided_by: 'admin', reason: 'no' });
      await store.settleApprovalRequest('old-withdrawn', { state: 'withdrawn', decided_by: null, reason: null });
      await store.settleApprovalRequest('old-expired', { state: 'expired', decided_by: null, reason: null });
      await store.settleApprovalRequest('recent-approved', { state: 'approved', decided_by: 'admin', reason: null });
      expect(await store.deleteSettledApprovals('2026-01-08T00:00:00.000Z')).toBe(4);
      for (const id of ['old-approved', 'old-denied', 'old-withdrawn', 'old-expired']) expect(await store.getApprovalRequest(id)).toBeUndefined();
      expect((await store.getApprovalRequest('old-pending'))?.state).toBe('pending');
      expect((await store.getApprovalRequest('recent-approved'))?.state).toBe('approved');
      expect(await store.deleteSettledApprovals('2026-01-08T00:00:00.000Z')).toBe(0);
      expect((await store.listPendingApprovals()).map((r) => r.id)).toEqual(['old-pending']);
    });

    it('keeps rules and requests across a reopen (durable adapters)', async () => {
      const subject = under.subject();
      if (!subject.reopen) {
        expect(subject.reopen).toBeUndefined();
        return;
      }
      await store.transaction((tx) => tx.saveApprovalRules(RULES));
      await store.addApprovalRequest(request('r1', '2026-01-01T00:00:00.000Z'));
      store = await subject.reopen();
      expect(await rules()).toEqual(RULES);
      expect(await store.listPendingApprovals()).toEqual([request('r1', '2026-01-01T00:00:00.000Z')]);
    });
  });
}
