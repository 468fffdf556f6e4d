import { reachLines } from '../../../src/adapters/cli/commands/inspect-commands';

const nothing = { network: false, read_paths: [], write_paths: [], env: [] };

/** `plugin info`'s "May reach" block (docs/cli.md): the sandbox and uid, the network, each granted path and name. */
describe('plugin info: May reach', () => {
  it('says a sandboxed plugin reaches its own folders only, with no network, when granted nothing', () => {
    expect(reachLines({ permissions: nothing, sandbox: { mode: 'bwrap', network: false }, uid: null })).toEqual([
      'May reach:',
      "  sandbox: bwrap, as the backend's user: its installed version (read-only), its data dir and TMPDIR, and what is below",
      '  network: none (a loopback of its own)',
      '  read: none',
      '  write: none',
      '  env: none',
    ]);
  });

  it('lists what was granted, and the uid of its own under a root backend', () => {
    const permissions = { network: true, read_paths: ['/srv/docs', '/opt/ref'], write_paths: ['/srv/out'], env: ['HTTPS_PROXY'] };
    expect(reachLines({ permissions, sandbox: { mode: 'bwrap', network: true }, uid: 2_000_001 })).toEqual([
      'May reach:',
      '  sandbox: bwrap, as uid 2000001: its installed version (read-only), its data dir and TMPDIR, and what is below',
      "  network: the host's network",
      '  read: /srv/docs, /opt/ref',
      '  write: /srv/out',
      '  env: HTTPS_PROXY',
    ]);
  });

  it('says an unsandboxed plugin reaches whatever its user can, the host network included', () => {
    expect(reachLines({ permissions: nothing, sandbox: { mode: 'none', network: true }, uid: 2_000_002 }).slice(1, 3)).toEqual([
      '  sandbox: none (unsandboxed), as uid 2000002: whatever that user can',
      "  network: the host's network",
    ]);
  });
});
