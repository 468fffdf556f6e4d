import { execFileSync } from 'node:child_process';
import { REPO_ROOT } from '../../support/processes/toolport-paths';

/** The SDK's old name, `toolport/plugin-sdk`, re-exports the package for one release (after `npm run build`). */
describe('toolport/plugin-sdk', () => {
  it('loads the same SDK as @toolport/plugin-sdk', () => {
    const script =
      "const a = require('toolport/plugin-sdk'); const b = require('@toolport/plugin-sdk'); console.log(JSON.stringify([Object.keys(a).sort(), a.serve === b.serve]))";
    const [keys, same] = JSON.parse(execFileSync(process.execPath, ['-e', script], { cwd: REPO_ROOT, encoding: 'utf8' })) as [string[], boolean];
    expect(keys).toEqual(['HostError', 'createPluginLogger', 'pluginHost', 'serve']);
    expect(same).toBe(true);
  });
});
