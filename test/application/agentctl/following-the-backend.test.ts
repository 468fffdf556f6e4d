import { AnnounceReadiness } from '../../../src/application/agentctl/announce-readiness';
import { ApplyLaunchSnapshot } from '../../../src/application/agentctl/apply-launch-snapshot';
import { ApplySnapshot } from '../../../src/application/agentctl/apply-snapshot';
import { FollowBackend } from '../../../src/application/agentctl/follow-backend';
import { HeldSchemaMemo } from '../../../src/application/agentctl/held-schema-memo';
import { PullCatalog } from '../../../src/application/agentctl/pull-catalog';
import { AgentctlSession } from '../../../src/application/agentctl/session-identity';
import { ToolRegistry } from '../../../src/application/agentctl/tool-registry';
import type { SessionIdentity } from '../../../src/domain/session';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { InMemoryBackendLink } from '../../../src/adapters/memory/in-memory-backend-link';
import { CapturingLogger } from '../../support/capturing-logger';
import { catalogTool, linkCredentials, ScriptedBackend, snapshotOf, TEST_IDENTITY, waitUntil } from '../../support/test-backend';

function agentctl(launchedAs: Partial<SessionIdentity> = TEST_IDENTITY) {
  const registry = new ToolRegistry();
  const session = new AgentctlSession(launchedAs);
  const logger = new CapturingLogger();
  const apply = new ApplySnapshot(registry, session, new HeldSchemaMemo(new AjvSchemaCompiler()), DEFAULT_SETTINGS, logger);
  const backend = new ScriptedBackend();
  const link = new InMemoryBackendLink(backend, linkCredentials(backend.sessionToken));
  const follow = new FollowBackend(link, new PullCatalog(link, session, apply, logger), apply);
  return { registry, apply, backend, link, follow, readiness: new AnnounceReadiness(registry, link), launch: new ApplyLaunchSnapshot(session, apply) };
}

describe('FollowBackend', () => {
  it('says hello with the control URL, pulls the catalog after it, and applies what the backend pushes', async () => {
    const { registry, backend, link, follow } = agentctl();
    follow.execute({ controlUrl: 'http://127.0.0.1:1' }, () => undefined);
    await waitUntil(() => registry.isHolding(), 2000, 'the first pull');
    expect(backend.hellos).toEqual([{ controlUrl: 'http://127.0.0.1:1' }]);
    expect(backend.pulls).toBe(1);
    const pushed = snapshotOf([catalogTool('acme.tools', 'add_tag'), catalogTool('acme.tools', 'remove_tag')], 2);
    expect(link.deliverPush(pushed)).toMatchObject({ ok: true, answer: { outcome: 'applied', revision: 2 } });
    expect(registry.current().byName.size).toBe(2);
  });

  it('tells the caller once the backend names another session than the launch did', async () => {
    const { backend, follow } = agentctl();
    backend.identity = { ...TEST_IDENTITY, surface: 'office-task' };
    const mismatches: string[] = [];
    follow.execute({}, (message) => mismatches.push(message));
    await waitUntil(() => mismatches.length === 1, 2000, 'the mismatch');
    expect(mismatches[0]).toContain('office-task');
  });
});

describe('AnnounceReadiness', () => {
  it('announces once, when a snapshot is held and the link is up, whichever comes last', async () => {
    const { registry, backend, link, follow, readiness, launch } = agentctl();
    let announced = 0;
    readiness.execute(() => announced++);
    expect(launch.execute(() => backend.catalog)).toEqual({ kind: 'applied' });
    expect(announced).toBe(0);
    follow.execute({}, () => undefined);
    await waitUntil(() => link.isConnected() && announced > 0, 2000, 'the announcement');
    link.setReachable(false);
    link.setReachable(true);
    await waitUntil(() => link.isConnected(), 2000, 'the reconnect');
    registry.swap(registry.current());
    expect(announced).toBe(1);
  });

  it('announces at once when both already hold', async () => {
    const { registry, follow, readiness } = agentctl();
    follow.execute({}, () => undefined);
    await waitUntil(() => registry.isHolding(), 2000, 'the first pull');
    let announced = 0;
    readiness.execute(() => announced++);
    expect(announced).toBe(1);
  });
});

describe('ApplyLaunchSnapshot', () => {
  it('takes the launch snapshot only from a launch naming the whole session, reading it only then', () => {
    const partial = agentctl({ task_id: 'task-1' });
    let reads = 0;
    expect(partial.launch.execute(() => reads++)).toEqual({ kind: 'ignored' });
    expect(reads).toBe(0);
    expect(partial.registry.isHolding()).toBe(false);
  });

  it('answers the violations of a malformed one and holds nothing', () => {
    const { launch, registry } = agentctl();
    expect(launch.execute(() => ({ generation: 'nope', revision: 1, tools: [] }))).toEqual({
      kind: 'malformed',
      violations: [{ path: 'generation', message: expect.any(String) }],
    });
    expect(registry.isHolding()).toBe(false);
  });
});
