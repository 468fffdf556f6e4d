import { AgentctlSession } from '../../../src/application/agentctl/session-identity';
import { TEST_IDENTITY } from '../../support/test-backend';

describe('AgentctlSession', () => {
  it('knows a complete launch identity at once and accepts the same from the backend', () => {
    const session = new AgentctlSession(TEST_IDENTITY);
    expect(session.current()).toEqual(TEST_IDENTITY);
    expect(session.confirm({ ...TEST_IDENTITY })).toEqual({ ok: true, identity: TEST_IDENTITY });
  });

  it('refuses a backend identity that contradicts the launch, even a partial one', () => {
    expect(new AgentctlSession(TEST_IDENTITY).confirm({ ...TEST_IDENTITY, surface: 'office-task' }).ok).toBe(false);
    const partial = new AgentctlSession({ task_id: 'task-1' });
    expect(partial.current()).toBeNull();
    expect(partial.confirm({ ...TEST_IDENTITY, task_id: 'task-2' })).toMatchObject({ ok: false, message: expect.stringContaining('task-2') });
  });

  it('learns its identity from the backend and wakes those waiting for it', async () => {
    const session = new AgentctlSession();
    const waiting = session.whenKnown(1000);
    session.confirm(TEST_IDENTITY);
    await expect(waiting).resolves.toEqual(TEST_IDENTITY);
    await expect(new AgentctlSession().whenKnown(10)).resolves.toBeNull();
  });
});
