import type { PluginManifest } from '../../src/domain/manifest';
import { workspaceOverrideViolations } from '../../src/domain/workspace-overrides';
import { manifestFixture } from '../support/fixtures';

const withPaths = (read_paths: string[], write_paths: string[] = []): PluginManifest =>
  manifestFixture('acme.files', '1.0.0', ['run'], { permissions: { network: false, read_paths, write_paths, env: [] } });

describe('workspaceOverrideViolations', () => {
  it('names each overridden key a permission path substitutes, with the first path that does', () => {
    const manifest = withPaths(['${package}/x', '${config.root}/docs'], ['${config.root}/cache', '${data_dir}/${config.out}']);
    expect(workspaceOverrideViolations(manifest, { root: '/a', out: 'b', label: 'c' })).toEqual([
      { path: 'root', message: 'not applicable per workspace: permissions.read_paths[1] substitutes it, and permissions are granted per installation' },
      { path: 'out', message: 'not applicable per workspace: permissions.write_paths[1] substitutes it, and permissions are granted per installation' },
    ]);
  });

  it('lets every key differ per workspace when no permission path substitutes it', () => {
    expect(workspaceOverrideViolations(withPaths(['/srv/shared']), { root: '/a' })).toEqual([]);
    expect(workspaceOverrideViolations(manifestFixture('acme.plain'), { api_key: 'k' })).toEqual([]);
  });

  it('refuses every key of an mcp-stdio plugin, whose configuration is substituted once per start', () => {
    const manifest = manifestFixture('acme.mcp', '1.0.0', [], {
      runtime: { type: 'mcp-stdio', command: 'node', args: ['server.js'], env: {} },
    } as Partial<PluginManifest>);
    expect(workspaceOverrideViolations(manifest, { token: 't', region: 'eu' })).toEqual([
      { path: 'token', message: "not applicable per workspace: an mcp-stdio plugin's configuration is substituted once per start" },
      { path: 'region', message: "not applicable per workspace: an mcp-stdio plugin's configuration is substituted once per start" },
    ]);
    expect(workspaceOverrideViolations(manifest, {})).toEqual([]);
  });
});
