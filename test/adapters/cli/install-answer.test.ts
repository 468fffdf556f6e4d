import type { PluginRecord } from '../../../src/api';
import { describeInstalled, missingConfigKeys } from '../../../src/adapters/cli/commands/install-answer';

function record(overrides: Partial<PluginRecord>): PluginRecord {
  return {
    id: 'acme.tracker',
    version: '1.0.0',
    status: 'active',
    display_name: null,
    description: null,
    last_error: null,
    last_error_at: null,
    restart_count: 0,
    package_sha256: 'ab'.repeat(32),
    tools: ['kandev_acme_tracker_create_issue'],
    installed_at: '2026-01-01T00:00:00.000Z',
    updated_at: '2026-01-01T00:00:00.000Z',
    warnings: [],
    permissions: { network: false, read_paths: [], write_paths: [], env: [] },
    pid: 4242,
    tls: true,
    uid: null,
    sandbox: { mode: 'none', network: true },
    ...overrides,
  };
}

describe('what install and upgrade print', () => {
  it('lists the tools of an active plugin', () => {
    expect(describeInstalled('Installed')({ record: record({}), missing: null })).toBe(
      `Installed acme.tracker 1.0.0 (active)\nSHA-256: ${'ab'.repeat(32)}\nTools:\n  kandev_acme_tracker_create_issue\n`,
    );
  });

  it('prints no Tools list for a plugin waiting for its configuration, but the config set naming each missing key', () => {
    const waiting = record({ status: 'needs_config', last_error: 'needs configuration: api_token: is required; base_url: is required' });
    const text = describeInstalled('Installed')({ record: waiting, missing: ['api_token', 'base_url'] });
    expect(text).not.toContain('Tools:');
    expect(text).not.toContain('kandev_acme_tracker_create_issue');
    expect(text).toContain('Installed acme.tracker 1.0.0 (needs_config)\n');
    expect(text).toContain('It waits for its configuration: needs configuration: api_token: is required; base_url: is required\n');
    expect(text).toContain('toolport plugin config set acme.tracker api_token=… base_url=…\n');
  });

  it('falls back to KEY=VALUE… when no required key is missing (a value of the wrong type)', () => {
    const text = describeInstalled('Upgraded')({ record: record({ status: 'needs_config' }), missing: [] });
    expect(text).toContain('toolport plugin config set acme.tracker KEY=VALUE…');
  });

  it('names the required keys without a value, sorted, whatever else the configuration holds', () => {
    const schema = { type: 'object', required: ['project', 'base_url', 'api_token'] };
    expect(missingConfigKeys(schema, { project: 'OPS', extra: 1 })).toEqual(['api_token', 'base_url']);
    expect(missingConfigKeys(schema, { project: 'OPS', base_url: 'x', api_token: '********' })).toEqual([]);
    expect(missingConfigKeys({ type: 'object' }, {})).toEqual([]);
    expect(missingConfigKeys(null, {})).toEqual([]);
  });
});
