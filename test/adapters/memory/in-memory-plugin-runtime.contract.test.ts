import { InMemoryPluginRuntime } from '../../../src/adapters/memory/in-memory-plugin-runtime';
import { describePluginRuntimeContract } from '../../contracts/plugin-runtime.contract';
import { echoBehaviour, failingBehaviour, launchSpecFixture } from '../../support/fake-plugins';

describePluginRuntimeContract([
  [
    'InMemoryPluginRuntime',
    () => {
      const runtime = new InMemoryPluginRuntime({ restartBackoffMs: 20 });
      runtime.register('/fake/echo/plugin', echoBehaviour());
      runtime.register('/fake/broken/plugin', failingBehaviour());
      return {
        runtime,
        wellBehaved: () => launchSpecFixture('contract.echo', '1.0.0', '/fake/echo/plugin'),
        failsToStart: () => launchSpecFixture('contract.broken', '1.0.0', '/fake/broken/plugin'),
        isAlive: (pid) => runtime.isAlive(pid),
        cleanup: async () => undefined,
      };
    },
  ],
]);
