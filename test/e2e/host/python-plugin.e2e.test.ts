import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { BackendWorld } from '../../support/processes/backend-world';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

jest.setTimeout(60_000);

const GREETER = 'toolport.greeter';
const GREET = 'kandev_toolport_greeter_greet';

/** A plugin in Python reaches the Host API with the proto alone (examples/plugins/greeter-py). */
describe('a Python plugin', () => {
  const world = new BackendWorld([], { prefix: 'toolport-python-e2e-' });

  afterAll(async () => {
    expect(await world.teardown({ graceMs: 10_000 })).toEqual([]);
  }, 30_000);

  it('is installed, configured, reads its configuration through GetConfig and keeps its state across a backend restart', async () => {
    await world.start();
    const installed = await world.api('POST', '/api/v1/plugins', { path: join(REPO_ROOT, 'examples', 'plugins', 'greeter-py') });
    expect(installed.status).toBe(201);
    expect(installed.body).toMatchObject({ id: GREETER, status: 'needs_config' });

    const configured = await world.api('PUT', `/api/v1/plugins/${GREETER}/config`, { values: { greeting: 'Bonjour' } });
    expect(configured.status).toBe(200);
    expect(configured.body.status).toBe('active');

    let agent = await world.agent(await world.session('kanban-task', 'task-py'));
    const first = await agent.call(GREET, { name: 'Ada' });
    expect(first.isError).toBeFalsy();
    expect(resultText(first)).toBe('Bonjour, Ada! (greeting #1 on this task)');
    expect(first.structuredContent).toEqual({ greeting: 'Bonjour, Ada! (greeting #1 on this task)', count: 1 });
    expect(resultText(await agent.call(GREET, { name: 'Grace' }))).toContain('#2');
    const other = await world.agent(await world.session('office-task', 'task-other'));
    expect(resultText(await other.call(GREET, { name: 'Linus' }))).toContain('#1');
    // Its stderr JSON lines are the host's records, tagged with its id.
    expect(world.backend.stderr()).toMatch(
      new RegExp(`"plugin_id":"${GREETER.replace('.', '\\.')}".*"plugin serving"|"plugin serving".*"plugin_id":"${GREETER.replace('.', '\\.')}"`),
    );

    await world.closeAgents();
    expect(await world.backend.stop('SIGTERM')).toBe(0);
    await world.start();
    agent = await world.agent(await world.session('kanban-task', 'task-py'));
    expect(resultText(await agent.call(GREET, { name: 'Ada' }))).toBe('Bonjour, Ada! (greeting #3 on this task)');
  });
});
