import { ToolportError } from '../../src/domain/errors';
import { configKeysIn, inSystemDirectory, isWithin, substitutePath } from '../../src/domain/permission-paths';
import { parseGrants, permissionsOf, ungrantedPermissions, type PluginPermissions } from '../../src/domain/permissions';

function asked(overrides: Partial<PluginPermissions> = {}): PluginPermissions {
  return { network: false, read_paths: [], write_paths: [], env: [], ...overrides };
}

describe('ungrantedPermissions at install', () => {
  it('asks nothing of a plugin that declares nothing', () => {
    expect(ungrantedPermissions(asked(), new Set())).toEqual([]);
    expect(permissionsOf({})).toEqual(asked());
  });

  it('names each kind asked and not granted, once', () => {
    const found = ungrantedPermissions(asked({ network: true, read_paths: ['/a', '/b'], env: ['X'] }), new Set(['env']));
    expect(found.map((v) => v.path)).toEqual(['permissions.network', 'permissions.read_paths']);
    expect(found[1]!.message).toContain('"/a", "/b"');
  });

  it('ignores grants for permissions not asked', () => {
    expect(ungrantedPermissions(asked({ write_paths: ['/w'] }), new Set(['network', 'env', 'write_paths']))).toEqual([]);
  });
});

describe('ungrantedPermissions at upgrade', () => {
  const running = asked({ network: true, read_paths: ['${config.root}'], env: ['A'] });

  it('needs no grant for what the running version already has', () => {
    expect(ungrantedPermissions(asked({ read_paths: ['${config.root}'], env: ['A'] }), new Set(), running)).toEqual([]);
    expect(ungrantedPermissions(running, new Set(), running)).toEqual([]);
  });

  it('needs a grant for each kind that grows', () => {
    const grown = asked({ network: true, read_paths: ['${config.root}', '/new'], env: ['A', 'B'], write_paths: ['/w'] });
    expect(ungrantedPermissions(grown, new Set(), running).map((v) => v.path)).toEqual([
      'permissions.read_paths',
      'permissions.write_paths',
      'permissions.env',
    ]);
    expect(ungrantedPermissions(grown, new Set(['read_paths', 'write_paths', 'env']), running)).toEqual([]);
  });

  it('needs a network grant when network is newly true', () => {
    expect(ungrantedPermissions(asked({ network: true }), new Set(), asked()).map((v) => v.path)).toEqual(['permissions.network']);
  });
});

describe('parseGrants', () => {
  it('accepts the four names and refuses any other with BAD_REQUEST', () => {
    expect([...parseGrants(['network', 'env', 'network'])]).toEqual(['network', 'env']);
    expect(() => parseGrants(['netwrk'])).toThrow(ToolportError);
    expect(() => parseGrants(['netwrk'])).toThrow(/unknown grant "netwrk"/);
    try {
      parseGrants([7]);
    } catch (error) {
      expect((error as ToolportError).code).toBe('BAD_REQUEST');
    }
  });
});

describe('substitutePath', () => {
  const values = { package: '/d/plugins/p/1.0.0', dataDir: '/d/plugin-data/p', config: { root: '/srv', port: 8080, flag: true } };

  it('replaces each placeholder, numbers and booleans in JSON form', () => {
    expect(substitutePath('${package}/a', values)).toEqual({ ok: true, path: '/d/plugins/p/1.0.0/a' });
    expect(substitutePath('${config.root}/${config.port}/${config.flag}/${data_dir}', values)).toEqual({ ok: true, path: '/srv/8080/true//d/plugin-data/p' });
  });

  it('names a config key with no value', () => {
    expect(substitutePath('${config.missing}/x', values)).toEqual({ ok: false, missingKey: 'missing' });
    expect(configKeysIn(['${config.a}/${config.b}', '/x/${config.a}'])).toEqual(['a', 'b']);
  });
});

describe('path containment', () => {
  it('knows a folder from a sibling with the same prefix', () => {
    expect(isWithin('/data/plugins', '/data')).toBe(true);
    expect(isWithin('/data', '/data')).toBe(true);
    expect(isWithin('/database', '/data')).toBe(false);
    expect(inSystemDirectory('/usr/bin/node')).toBe(true);
    expect(inSystemDirectory('/usr2/node')).toBe(false);
    expect(inSystemDirectory('/root/.nvm/versions/node/bin/node')).toBe(false);
  });
});
