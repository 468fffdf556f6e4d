import { resolve } from 'node:path';
import { buildSync } from 'esbuild';

/**
 * The SDK ships to plugin authors: it must not pull in anything of the host's (src/), and it
 * must bundle into one self-contained file (a plugin package has no node_modules of its own).
 */
describe('the plugin SDK as shipped', () => {
  const root = resolve(__dirname, '..');
  const result = buildSync({
    entryPoints: [resolve(root, 'src/index.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    metafile: true,
    logLevel: 'silent',
  });
  const inputs = Object.keys(result.metafile!.inputs);

  // esbuild names inputs relative to the working directory, the repository root under jest.
  it("imports nothing from the host's src/", () => {
    expect(inputs.filter((path) => !path.startsWith('packages/plugin-sdk/') && !path.includes('node_modules/'))).toEqual([]);
    expect(inputs.some((path) => path.startsWith('packages/plugin-sdk/src/generated/'))).toBe(true);
  });

  // grpc-health-check loads its .proto through __dirname when required, which a one-file
  // bundle breaks; grpc-js only does so for channelz/ORCA, which a plugin never turns on.
  it('bundles without grpc-health-check, whose .proto is read from disk at run time', () => {
    expect(inputs.some((path) => path.includes('node_modules/@grpc/grpc-js/'))).toBe(true);
    expect(inputs.filter((path) => path.includes('grpc-health-check'))).toEqual([]);
  });
});
