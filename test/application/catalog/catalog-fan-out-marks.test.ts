import type { ApprovalRule } from '../../../src/domain/approvals';
import type { ScopeView } from '../../../src/domain/scopes';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';

const WS1: ScopeView = { workspace: 'ws-1', profile: 'default', surface: 'kanban-task' };
const WS2: ScopeView = { workspace: 'ws-2', profile: 'default', surface: 'kanban-task' };

describe('CatalogFanOut approval marks (docs/approvals.md, "Marked tools")', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
    h.fanOut.execute();
    await h.install.execute({ path: h.addEchoPackage('a', '1.0.0', ['run', 'stop']) });
    await h.install.execute({ path: h.addEchoPackage('b', '1.0.0', ['look']) });
    await h.fanOut.whenIdle();
  });

  afterEach(async () => {
    await h.shutdown();
  });

  const namesOf = (pluginId: string): string[] =>
    h.catalog
      .current()
      .tools.filter((tool) => tool.plugin_id === pluginId)
      .map((tool) => tool.exposed_name);
  const setRules = (rules: ApprovalRule[]): Promise<void> => h.catalog.commit((tx) => tx.saveApprovalRules(rules));
  const link = (sessionId: string, view: ScopeView): void => {
    h.publisher.link(sessionId);
    h.fanOut.serve(sessionId, view);
  };
  const marksSince = (from: number) => h.publisher.marks.slice(from).map(({ sessionId, tools }) => [sessionId, [...tools]]);

  it('tells each session on link the tools a rule matching its workspace may hold, whatever the mode', async () => {
    await setRules([
      { workspace: 'ws-1', profile: '*', tools: 'a', mode: 'operator' },
      { workspace: '*', profile: '*', tools: namesOf('b')[0]!, mode: 'client' },
    ]);
    link('s1', WS1);
    link('s2', WS2);
    expect(marksSince(0)).toEqual([
      ['s1', [...namesOf('a'), ...namesOf('b')].sort()],
      ['s2', namesOf('b')],
    ]);
  });

  it('a rules change sends marks exactly once to each affected session and to no other, and moves no revision', async () => {
    link('s1', WS1);
    link('s2', WS1);
    link('s3', WS2);
    const revision = h.catalog.current().revision;
    const from = h.publisher.marks.length;
    await setRules([{ workspace: 'ws-1', profile: '*', tools: 'a', mode: 'client' }]);
    expect(marksSince(from)).toEqual([
      ['s1', namesOf('a')],
      ['s2', namesOf('a')],
    ]);
    expect(h.catalog.current().revision).toBe(revision);
    const again = h.publisher.marks.length;
    await setRules([{ workspace: 'ws-1', profile: '*', tools: 'a', mode: 'operator' }]);
    expect(marksSince(again)).toEqual([]);
  });

  it('a catalog change re-marks the sessions whose marked tools it changed', async () => {
    await setRules([{ workspace: '*', profile: '*', tools: 'c', mode: 'client' }]);
    link('s1', WS1);
    const from = h.publisher.marks.length;
    await h.install.execute({ path: h.addEchoPackage('c', '1.0.0', ['go']) });
    await h.fanOut.whenIdle();
    expect(marksSince(from)).toEqual([['s1', namesOf('c')]]);
  });
});
