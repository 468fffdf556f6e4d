import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { GrpcPluginRuntime } from '../../../src/adapters/grpc/grpc-plugin-runtime';
import { FAST_TEST_SUPERVISION, describePluginRuntimeContract } from '../../contracts/plugin-runtime.contract';
import { leftoverProcesses, processExists } from './support/proc-scan';
import { newDataDir, nodeScriptSpec, removeDataDirs } from './support/plugin-specs';
import { CapturingLogger } from '../../support/capturing-logger';
import { buildSdkFixture, FIXTURE_DIR } from './support/sdk-fixture';
import type { BuiltFixture } from './support/sdk-fixture';

/** The PluginRuntime contract against real plugin processes (the bundled SDK fixture). */
let built: BuiltFixture;
beforeAll(() => {
  built = buildSdkFixture();
});
afterAll(() => built.remove());
// Runs after the suite's own afterEach (which stops every instance): nothing may be left.
afterEach(() => {
  expect(leftoverProcesses([built.dir, FIXTURE_DIR])).toEqual([]);
});

describePluginRuntimeContract([
  [
    'GrpcPluginRuntime',
    () => ({
      runtime: new GrpcPluginRuntime(new CapturingLogger(), { startTimeoutMs: 5000, healthIntervalMs: 1000, ...FAST_TEST_SUPERVISION }),
      wellBehaved: () => nodeScriptSpec('contract.echo', built.script, newDataDir()),
      // The SDK fixture exits 2 before its handshake when refuse-start is in its data dir.
      failsToStart: () => {
        const spec = nodeScriptSpec('contract.broken', built.script, newDataDir());
        writeFileSync(join(spec.dataDir, 'refuse-start'), '');
        return spec;
      },
      refuseStarts: (spec) => writeFileSync(join(spec.dataDir, 'refuse-start'), ''),
      isAlive: processExists,
      cleanup: async () => removeDataDirs(),
    }),
  ],
]);
