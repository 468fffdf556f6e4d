import { InMemoryPluginRuntime } from '../../../src/adapters/memory/in-memory-plugin-runtime';
import { FAST_TEST_SUPERVISION, describePluginRuntimeContract } from '../../contracts/plugin-runtime.contract';
import { echoBehaviour, failingBehaviour, launchSpecFixture } from '../../support/fake-plugins';

describePluginRuntimeContract([
  [
    'InMemoryPluginRuntime',
    () => {
      const runtime = new InMemoryPluginRuntime({ healthIntervalMs: 50, ...FAST_TEST_SUPERVISION });
      runtime.register('/fake/echo/plugin', echoBehaviour());
      runtime.register('/fake/broken/plugin', failingBehaviour());
      return {
        runtime,
        wellBehaved: () => launchSpecFixture('contract.echo', '1.0.0', '/fake/echo/plugin'),
        failsToStart: () => launchSpecFixture('contract.broken', '1.0.0', '/fake/broken/plugin'),
        refuseStarts: (spec) => runtime.register(spec.executable, { ...echoBehaviour(), failsToStart: failingBehaviour().failsToStart }),
        isAlive: (pid) => runtime.isAlive(pid),
        cleanup: async () => undefined,
      };
    },
  ],
]);
