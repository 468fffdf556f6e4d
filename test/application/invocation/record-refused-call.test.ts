import type { ToolCallRecord } from '../../../src/application/invocation/call-events';
import { AgentctlRequests } from '../../../src/application/sessions/agentctl-requests';
import type { Call, ConsoleEvent } from '../../../src/api';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { consoleFeedOf } from '../../support/console-feed';
import { TEST_IDENTITY } from '../../support/test-backend';

/** docs/agentctl.md §7 `mcp.report_refused_call`: a call agentctl refused itself is logged and told as a `refused` call. */
describe('AgentctlRequests.refused', () => {
  let h: BackendHarness;
  let told: Call[];
  let ended: ToolCallRecord[];

  beforeEach(async () => {
    h = await createBackendHarness();
    const feed = consoleFeedOf(h);
    told = [];
    feed.subscribe((event: ConsoleEvent) => {
      if (event.type === 'call') told.push(event.data);
    });
    ended = [];
    h.calls.onCall((call) => ended.push(call));
  });

  afterEach(() => h.shutdown());

  it('records an unknown tool and refused arguments as refused calls, each with a log line', async () => {
    await h.install.execute({ path: h.addEchoPackage('acme.tools') });
    const requests = h.container.get(AgentctlRequests);
    requests.refused(TEST_IDENTITY, { name: 'kandev_nope', code: 'NOT_FOUND' });
    requests.refused(TEST_IDENTITY, { name: 'kandev_acme_tools_echo', code: 'INVALID_ARGUMENTS', tool: { pluginId: 'acme.tools', localName: 'echo' } });

    expect(ended).toMatchObject([
      {
        pluginId: '',
        localName: '',
        exposedName: 'kandev_nope',
        outcome: 'refused',
        code: 'NOT_FOUND',
        sessionId: 'session-1',
        taskId: 'task-1',
        durationMs: 0,
      },
      { pluginId: 'acme.tools', localName: 'echo', outcome: 'refused', code: 'INVALID_ARGUMENTS', sessionId: 'session-1' },
    ]);
    expect(ended[0]!.invocationId).not.toBe(ended[1]!.invocationId);
    expect(h.calls.recentCalls()).toHaveLength(2);
    expect(told.map((c) => [c.exposed_name, c.plugin_id, c.outcome, c.code])).toEqual([
      ['kandev_nope', '', 'refused', 'NOT_FOUND'],
      ['kandev_acme_tools_echo', 'acme.tools', 'refused', 'INVALID_ARGUMENTS'],
    ]);
    const lines = h.logger.withMessage('tool call refused by agentctl');
    expect(lines.map((r) => [r.level, r.fields.tool, r.fields.code, r.fields.session_id, r.fields.outcome])).toEqual([
      ['info', 'kandev_nope', 'NOT_FOUND', 'session-1', 'refused'],
      ['info', 'kandev_acme_tools_echo', 'INVALID_ARGUMENTS', 'session-1', 'refused'],
    ]);
    expect(lines[1]!.fields).toMatchObject({ plugin_id: 'acme.tools', local_name: 'echo', task_id: 'task-1' });
    // The catalog revision the report arrived at, in the log line, the call event and the console row.
    const revision = h.catalog.current().revision;
    expect(lines.map((r) => r.fields.catalog_revision)).toEqual([revision, revision]);
    expect(ended.map((c) => c.catalogRevision)).toEqual([revision, revision]);
    expect(told.map((c) => c.catalog_revision)).toEqual([revision, revision]);
  });

  it('counts a report naming a tool the catalog does not hold as naming none', () => {
    h.container
      .get(AgentctlRequests)
      .refused(TEST_IDENTITY, { name: 'kandev_made_up', code: 'INVALID_ARGUMENTS', tool: { pluginId: 'made.up', localName: 'x' } });
    expect(ended).toMatchObject([{ pluginId: '', localName: '', exposedName: 'kandev_made_up', outcome: 'refused', code: 'INVALID_ARGUMENTS' }]);
    expect(h.logger.withMessage('tool call refused by agentctl')[0]!.fields).not.toHaveProperty('plugin_id');
  });
});
