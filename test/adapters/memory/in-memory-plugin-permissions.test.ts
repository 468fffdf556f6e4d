import { InMemoryPluginRuntime } from '../../../src/adapters/memory/in-memory-plugin-runtime';
import type { LaunchPermissions } from '../../../src/application/ports/plugin-runtime';
import { contractCall } from '../../contracts/plugin-runtime.contract';
import { launchSpecFixture } from '../../support/fake-plugins';

/** The fake runtime gives its plugins what the real one does: the reach granted at each start, and the record's sandbox facts. */
describe('InMemoryPluginRuntime and permissions', () => {
  const granted: LaunchPermissions = { network: true, readPaths: ['/srv/docs'], writePaths: ['/srv/out'], env: ['LANGUAGE'] };
  let runtime: InMemoryPluginRuntime;

  afterEach(() => runtime.stopAll());

  function withReachTool(options?: { sandbox: 'bwrap' | 'none' }): void {
    runtime = new InMemoryPluginRuntime({}, undefined, options);
    runtime.register('/fake/reach/plugin', {
      tools: { reach: (_args, call) => ({ text: JSON.stringify(call.permissions), structuredContentJson: '', isError: false }) },
    });
  }

  it('shows a tool what its process was granted at its start, and nothing when the spec grants nothing', async () => {
    withReachTool();
    const spec = launchSpecFixture('acme.reach', '1.0.0', '/fake/reach/plugin');
    const plain = await runtime.start(spec);
    expect(JSON.parse((await runtime.invoke(plain, contractCall('reach', {}))).text)).toEqual({ network: false, readPaths: [], writePaths: [], env: [] });
    const reaching = await runtime.start({ ...spec, permissions: async () => granted });
    expect(JSON.parse((await runtime.invoke(reaching, contractCall('reach', {}))).text)).toEqual(granted);
  });

  it('says how its plugins run as a real runtime would: sandboxed with the network only when granted, unsandboxed always with it', () => {
    withReachTool({ sandbox: 'bwrap' });
    expect(runtime.sandboxFacts('acme.reach', false)).toEqual({ mode: 'bwrap', network: false, uid: null });
    expect(runtime.sandboxFacts('acme.reach', true)).toEqual({ mode: 'bwrap', network: true, uid: null });
    withReachTool();
    expect(runtime.sandboxFacts('acme.reach', false)).toEqual({ mode: 'none', network: true, uid: null });
  });
});
