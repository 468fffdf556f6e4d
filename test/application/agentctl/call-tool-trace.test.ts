import { ApplySnapshot } from '../../../src/application/agentctl/apply-snapshot';
import { CallPluginTool } from '../../../src/application/agentctl/call-plugin-tool';
import { CallTool } from '../../../src/application/agentctl/call-tool';
import { GetTaskContext } from '../../../src/application/agentctl/get-task-context';
import { HeldSchemaMemo } from '../../../src/application/agentctl/held-schema-memo';
import { AgentctlSession } from '../../../src/application/agentctl/session-identity';
import { ToolRegistry } from '../../../src/application/agentctl/tool-registry';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { InvocationError } from '../../../src/domain/errors';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { InMemoryBackendLink } from '../../../src/adapters/memory/in-memory-backend-link';
import { CapturingLogger } from '../../support/capturing-logger';
import { RecordingTracer } from '../../support/recording-tracer';
import { catalogTool, linkCredentials, ScriptedBackend, snapshotOf, TEST_IDENTITY, waitUntil } from '../../support/test-backend';

const NAME = 'kandev_acme_tools_add_tag';
const INCOMING = { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` };

async function setup() {
  const registry = new ToolRegistry();
  const schemas = new HeldSchemaMemo(new AjvSchemaCompiler());
  const logger = new CapturingLogger();
  const session = new AgentctlSession(TEST_IDENTITY);
  new ApplySnapshot(registry, session, schemas, DEFAULT_SETTINGS, logger).execute(
    snapshotOf([catalogTool('acme.tools', 'add_tag', { input_schema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } })]),
  );
  const backend = new ScriptedBackend();
  const link = new InMemoryBackendLink(backend, linkCredentials(backend.sessionToken));
  link.connect({});
  await waitUntil(() => link.isConnected());
  const tracer = new RecordingTracer();
  const callTool = new CallTool(registry, new GetTaskContext(session, 100), new CallPluginTool(registry, link, schemas, logger, session), 100, tracer);
  return { callTool, backend, tracer, link, registry, schemas, logger };
}

describe('CallTool spans', () => {
  it('makes one span per call continuing the agent context, tells it the tool and the invocation, and hands its own context to the backend', async () => {
    const { callTool, backend, tracer } = await setup();
    backend.onInvoke = async () => ({ invocationId: 'inv-1', text: 'done', structuredContent: null, isError: false });
    await callTool.execute({ name: NAME, arguments: { value: 'x' }, trace: INCOMING });
    expect(tracer.spans).toEqual([
      {
        kind: 'tool_call',
        parent: INCOMING,
        facts: { pluginId: 'acme.tools', tool: 'add_tag', exposedName: NAME, invocationId: 'inv-1' },
        ended: { outcome: 'success', code: null },
        traceparent: expect.any(String),
      },
    ]);
    expect(backend.invokes[0]!.trace).toEqual({ traceparent: tracer.spans[0]!.traceparent });
  });

  it('ends the span with the code of a failure: invalid arguments sent nowhere, an unknown tool, a backend error', async () => {
    const { callTool, backend, tracer } = await setup();
    await callTool.execute({ name: NAME, arguments: { value: 1 } });
    await callTool.execute({ name: 'kandev_nope', arguments: {} });
    backend.onInvoke = async () => {
      throw new InvocationError('PLUGIN_CRASHED', 'it exited');
    };
    await callTool.execute({ name: NAME, arguments: { value: 'x' } });
    expect(tracer.spans.map((s) => s.ended)).toEqual([
      { outcome: 'error', code: 'INVALID_ARGUMENTS' },
      { outcome: 'error', code: 'NOT_FOUND' },
      { outcome: 'error', code: 'PLUGIN_CRASHED' },
    ]);
    expect(backend.invokes).toHaveLength(1);
  });

  it("ends a built-in's span with the code of its failure", async () => {
    const { link, registry, schemas, logger } = await setup();
    const tracer = new RecordingTracer();
    const unknown = new AgentctlSession({});
    const callTool = new CallTool(registry, new GetTaskContext(unknown, 10), new CallPluginTool(registry, link, schemas, logger, unknown), 10, tracer);
    expect(await callTool.execute({ name: 'get_task_context', arguments: {} })).toMatchObject({
      found: true,
      result: { kind: 'failure', code: 'BACKEND_UNAVAILABLE' },
    });
    expect(tracer.spans.map((s) => s.ended)).toEqual([{ outcome: 'error', code: 'BACKEND_UNAVAILABLE' }]);
  });

  it('spans a built-in call as well', async () => {
    const { callTool, tracer } = await setup();
    await callTool.execute({ name: 'get_task_context', arguments: {} });
    expect(tracer.spans).toMatchObject([{ facts: { tool: 'get_task_context', exposedName: 'get_task_context' }, ended: { outcome: 'success', code: null } }]);
  });
});
