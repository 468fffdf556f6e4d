import { ApplySnapshot } from '../../../src/application/agentctl/apply-snapshot';
import { CallPluginTool } from '../../../src/application/agentctl/call-plugin-tool';
import { HeldSchemaMemo } from '../../../src/application/agentctl/held-schema-memo';
import { AgentctlSession } from '../../../src/application/agentctl/session-identity';
import { ToolRegistry } from '../../../src/application/agentctl/tool-registry';
import type { BackendLink } from '../../../src/application/ports/backend-link';
import type { PluginToolAnswer, PluginToolRequest } from '../../../src/application/ports/link-messages';
import { DEFAULT_SETTINGS } from '../../../src/application/settings';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { InvocationError } from '../../../src/domain/errors';
import { CapturingLogger } from '../../support/capturing-logger';
import { catalogTool, snapshotOf, TEST_IDENTITY } from '../../support/test-backend';

const NAME = 'kandev_acme_tools_add_tag';
const EVERY_MS = 15_000;

/** A link whose one pending call the test holds, releases, answers or drops. */
class HoldingLink {
  onHeld: ((held: boolean) => void) | undefined;
  private settle: { resolve(answer: PluginToolAnswer): void; reject(error: InvocationError): void } | undefined;

  invokePluginTool(_request: PluginToolRequest, _signal?: AbortSignal, onHeld?: (held: boolean) => void): Promise<PluginToolAnswer> {
    this.onHeld = onHeld;
    return new Promise((resolve, reject) => (this.settle = { resolve, reject }));
  }
  reportRefusedCall(): void {}
  answer(): void {
    this.settle?.resolve({ invocationId: 'i-1', text: 'done', structuredContent: null, isError: false });
  }
  drop(): void {
    this.settle?.reject(new InvocationError('BACKEND_UNAVAILABLE', 'link lost; the call did not run (it was waiting for approval)'));
  }
}

function setup() {
  const registry = new ToolRegistry();
  const schemas = new HeldSchemaMemo(new AjvSchemaCompiler());
  const logger = new CapturingLogger();
  new ApplySnapshot(registry, new AgentctlSession(TEST_IDENTITY), schemas, DEFAULT_SETTINGS, logger).execute(
    snapshotOf([catalogTool('acme.tools', 'add_tag')]),
  );
  const link = new HoldingLink();
  const call = new CallPluginTool(registry, link as unknown as BackendLink, schemas, logger, new AgentctlSession(TEST_IDENTITY), EVERY_MS);
  return { call, link };
}

/**
 * Progress while the backend holds a call for an approval (docs/approvals.md): a step every
 * interval while held, for a call that asked (a progressToken) only, ending with the wait.
 */
describe('progress while a call waits for approval', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  it('reports a step every interval while held, counting up, and none once released and answered', async () => {
    const { call, link } = setup();
    const steps: Array<[number, string]> = [];
    const pending = call.execute({ name: NAME, arguments: {}, onProgress: (progress, message) => steps.push([progress, message]) });
    await jest.advanceTimersByTimeAsync(EVERY_MS * 2);
    expect(steps).toEqual([]);
    link.onHeld?.(true);
    await jest.advanceTimersByTimeAsync(EVERY_MS * 3);
    expect(steps).toEqual([
      [1, 'waiting for approval: 15 s so far'],
      [2, 'waiting for approval: 30 s so far'],
      [3, 'waiting for approval: 45 s so far'],
    ]);
    link.onHeld?.(false);
    await jest.advanceTimersByTimeAsync(EVERY_MS * 3);
    expect(steps).toHaveLength(3);
    link.answer();
    expect(await pending).toMatchObject({ found: true, result: { kind: 'answer', text: 'done' } });
    expect(jest.getTimerCount()).toBe(0);
  });

  it('stops when the call ends while held (decided, cancelled, or the link dropped)', async () => {
    const { call, link } = setup();
    const steps: number[] = [];
    const pending = call.execute({ name: NAME, arguments: {}, onProgress: (progress) => steps.push(progress) });
    link.onHeld?.(true);
    await jest.advanceTimersByTimeAsync(EVERY_MS);
    link.drop();
    expect(await pending).toMatchObject({ found: true, result: { kind: 'failure', code: 'BACKEND_UNAVAILABLE' } });
    await jest.advanceTimersByTimeAsync(EVERY_MS * 3);
    expect(steps).toEqual([1]);
    expect(jest.getTimerCount()).toBe(0);
  });

  it('sends nothing for a call that did not ask, and keeps a failing reporter from the call', async () => {
    const { call, link } = setup();
    const quiet = call.execute({ name: NAME, arguments: {} });
    expect(link.onHeld).toBeUndefined();
    link.answer();
    await quiet;
    const failing = call.execute({
      name: NAME,
      arguments: {},
      onProgress: () => {
        throw new Error('client gone');
      },
    });
    link.onHeld?.(true);
    await jest.advanceTimersByTimeAsync(EVERY_MS * 2);
    link.answer();
    expect(await failing).toMatchObject({ found: true, result: { kind: 'answer' } });
  });
});
