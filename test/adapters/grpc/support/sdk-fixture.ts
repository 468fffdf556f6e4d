import { join, resolve } from 'node:path';
import { bundleEntry, type BundledFixture } from '../../../../packages/plugin-sdk/test/support/bundle-fixture';

export const FIXTURE_DIR = resolve(__dirname, '../../../fixtures/plugins');

/** A bundled SDK test plugin in its own temp folder (the folder also marks its processes in /proc). */
export type BuiltFixture = BundledFixture;

/**
 * Bundles test/fixtures/plugins/sdk-plugin.ts, or another TypeScript fixture there, into one
 * CommonJS file, as the SDK's own tests bundle theirs (bundleEntry says why and how).
 */
export function buildSdkFixture(entry = 'sdk-plugin'): BuiltFixture {
  return bundleEntry(join(FIXTURE_DIR, `${entry}.ts`));
}
