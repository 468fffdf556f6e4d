import { InMemoryHostPaths } from '../../../src/adapters/memory/in-memory-host-paths';
import { FsHostPaths } from '../../../src/adapters/system/fs-host-paths';

/** The in-memory backend's host paths: its packages' folders exist without a disk; the rest is the real host. */
describe('InMemoryHostPaths', () => {
  const paths = new InMemoryHostPaths(new FsHostPaths('/memory', process.env), ['/srv']);

  it('holds every path under the in-memory data dir and the present folders as named, with no link', async () => {
    expect(await paths.resolve('/memory/plugins/acme.tools/1.0.0')).toEqual({ realpath: '/memory/plugins/acme.tools/1.0.0', links: [] });
    expect(await paths.resolve('/srv/docs')).toEqual({ realpath: '/srv/docs', links: [] });
    expect(await paths.interpreterLine('/memory/plugins/acme.tools/1.0.0/main.js')).toBeUndefined();
  });

  it('answers every other path as the real host does: a missing one is missing, a real one resolved', async () => {
    expect(await paths.resolve('/srvx/not-there')).toBeUndefined();
    expect((await paths.resolve(process.execPath))?.realpath).toBe(paths.ownNode);
    expect(paths.dataDir).toBe('/memory');
  });
});
