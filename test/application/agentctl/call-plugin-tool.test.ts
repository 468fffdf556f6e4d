import { ApplySnapshot } from '../../../src/application/agentctl/apply-snapshot';
import { CallPluginTool } from '../../../src/application/agentctl/call-plugin-tool';
import { HeldSchemaMemo } from '../../../src/application/agentctl/held-schema-memo';
import { AgentctlSession } from '../../../src/application/agentctl/session-identity';
import { ToolRegistry } from '../../../src/application/agentctl/tool-registry';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { InMemoryBackendLink } from '../../../src/adapters/memory/in-memory-backend-link';
import { CapturingLogger } from '../../support/capturing-logger';
import { catalogTool, hangingInvoke, linkCredentials, ScriptedBackend, snapshotOf, TEST_IDENTITY, waitUntil } from '../../support/test-backend';

const NAME = 'kandev_acme_tools_add_tag';

async function setup() {
  const registry = new ToolRegistry();
  const schemas = new HeldSchemaMemo(new AjvSchemaCompiler());
  const logger = new CapturingLogger();
  new ApplySnapshot(registry, new AgentctlSession(TEST_IDENTITY), schemas, DEFAULT_SETTINGS, logger).execute(
    snapshotOf([catalogTool('acme.tools', 'add_tag', { input_schema: { type: 'object', properties: { value: { type: 'string' } }, required: ['value'] } })]),
  );
  const backend = new ScriptedBackend();
  const link = new InMemoryBackendLink(backend, linkCredentials(backend.sessionToken));
  link.connect({ controlUrl: 'http://127.0.0.1:1' });
  await waitUntil(() => link.isConnected());
  return { call: new CallPluginTool(registry, link, schemas, logger, new AgentctlSession(TEST_IDENTITY)), backend, link, logger };
}

describe('CallPluginTool', () => {
  it('answers not found for a name no listed tool has', async () => {
    const { call } = await setup();
    expect(await call.execute({ name: 'kandev_other_x', arguments: {} })).toEqual({ found: false, name: 'kandev_other_x' });
  });

  it('refuses invalid or missing arguments with every issue and sends nothing', async () => {
    const { call, backend } = await setup();
    expect(await call.execute({ name: NAME, arguments: { value: 1 } })).toEqual({
      found: true,
      result: { kind: 'failure', code: 'INVALID_ARGUMENTS', message: `${NAME}: /value must be string` },
    });
    expect(await call.execute({ name: NAME, arguments: undefined })).toEqual({
      found: true,
      result: { kind: 'failure', code: 'INVALID_ARGUMENTS', message: `${NAME}: / must have required property 'value'` },
    });
    expect(backend.invokes).toHaveLength(0);
  });

  it('refuses arguments whose compact JSON is over 4 MiB and sends nothing; exactly 4 MiB is sent', async () => {
    const { call, backend } = await setup();
    const overhead = JSON.stringify({ value: '' }).length;
    const over = await call.execute({ name: NAME, arguments: { value: 'x'.repeat(4 * 1024 * 1024 - overhead + 1) } });
    expect(over).toEqual({
      found: true,
      result: { kind: 'failure', code: 'INVALID_ARGUMENTS', message: `${NAME}: the arguments are 4194305 bytes of JSON, over the 4194304-byte limit` },
    });
    expect(backend.invokes).toHaveLength(0);
    const at = await call.execute({ name: NAME, arguments: { value: 'x'.repeat(4 * 1024 * 1024 - overhead) } });
    expect(at).toMatchObject({ found: true, result: { kind: 'answer', isError: false } });
    expect(backend.invokes).toHaveLength(1);
  });

  it('returns the plugin result, structured content included', async () => {
    const { call, backend } = await setup();
    backend.onInvoke = async () => ({ invocationId: 'i', text: 'done', structuredContent: { tag: 'x' }, isError: false });
    expect(await call.execute({ name: NAME, arguments: { value: 'x' } })).toEqual({
      found: true,
      result: { kind: 'answer', text: 'done', structuredContent: { tag: 'x' }, isError: false },
    });
  });

  it('ends a cancelled call as a failure with its code', async () => {
    const { call, backend, logger } = await setup();
    backend.onInvoke = hangingInvoke;
    const abort = new AbortController();
    const pending = call.execute({ name: NAME, arguments: { value: 'x' } }, abort.signal);
    await waitUntil(() => backend.invokes.length === 1);
    abort.abort();
    expect(await pending).toEqual({ found: true, result: { kind: 'failure', code: 'CANCELLED', message: 'the call was cancelled by the client' } });
    expect(logger.withMessage('plugin tool call')[0].fields).toMatchObject({ outcome: 'cancelled', code: 'CANCELLED' });
  });

  it('answers BACKEND_UNAVAILABLE while the link is down', async () => {
    const { call, link } = await setup();
    link.setReachable(false);
    const outcome = await call.execute({ name: NAME, arguments: { value: 'x' } });
    expect(outcome).toMatchObject({ found: true, result: { kind: 'failure', code: 'BACKEND_UNAVAILABLE' } });
  });

  it('logs and reports an unknown tool and invalid arguments to the backend, never the arguments', async () => {
    const { call, backend, logger } = await setup();
    await call.execute({ name: 'kandev_other_x', arguments: { secret: 'hunter2-unknown' } });
    await call.execute({ name: NAME, arguments: { value: 12345 } });
    await waitUntil(() => backend.refusals.length === 2);
    expect(backend.refusals).toEqual([
      { session: { ...TEST_IDENTITY, profile: 'default' }, report: { name: 'kandev_other_x', code: 'NOT_FOUND' } },
      {
        session: { ...TEST_IDENTITY, profile: 'default' },
        report: { name: NAME, code: 'INVALID_ARGUMENTS', tool: { pluginId: 'acme.tools', localName: 'add_tag' } },
      },
    ]);
    expect(logger.withMessage('tool call refused').map((r) => [r.level, r.fields])).toEqual([
      ['info', { tool: 'kandev_other_x', code: 'NOT_FOUND', session_id: TEST_IDENTITY.session_id, outcome: 'refused' }],
      ['info', { tool: NAME, code: 'INVALID_ARGUMENTS', session_id: TEST_IDENTITY.session_id, outcome: 'refused' }],
    ]);
    const everything = JSON.stringify([logger.records, backend.refusals]);
    expect(everything).not.toContain('hunter2-unknown');
    expect(everything).not.toContain('12345');
  });

  it('reports nothing for a call it sends', async () => {
    const { call, backend } = await setup();
    await call.execute({ name: NAME, arguments: { value: 'x' } });
    expect(backend.invokes).toHaveLength(1);
    expect(backend.refusals).toHaveLength(0);
  });

  it('drops the report while the link is down, and still answers', async () => {
    const { call, backend, link } = await setup();
    link.setReachable(false);
    expect(await call.execute({ name: 'kandev_other_x', arguments: {} })).toEqual({ found: false, name: 'kandev_other_x' });
    expect(backend.refusals).toHaveLength(0);
  });
});
