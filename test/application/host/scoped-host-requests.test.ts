import { randomBytes } from 'node:crypto';
import { InMemoryPluginStore } from '../../../src/adapters/memory/in-memory-plugin-store';
import { AesGcmSecretBox } from '../../../src/adapters/system/aes-gcm-secret-box';
import { CryptoIdGenerator } from '../../../src/adapters/system/crypto-id-generator';
import { HostRequests, type HostReach } from '../../../src/application/host/host-requests';
import { HostSessions, type OpenHostSession } from '../../../src/application/host/host-sessions';
import type { HostCallBinding } from '../../../src/application/ports/host-access';
import { sealConfiguration, sealWorkspaceConfiguration } from '../../../src/application/plugins/plugin-configuration';
import type { HostCallError } from '../../../src/domain/errors';
import { LIMITS } from '../../../src/domain/limits';
import { taskOwner, workspaceOwner } from '../../../src/domain/host-entry-owner';
import { CapturingLogger } from '../../support/capturing-logger';
import { installed } from '../../contracts/store-under-test';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => {
      throw new Error('expected the Host call to be refused');
    },
    (e: unknown) => e,
  )) as HostCallError;
  return error.code;
}

function binding(invocationId: string, workspaceId: string, taskId = 'task-1'): HostCallBinding {
  return { invocationId, workspaceId, taskId, sessionId: `session-${invocationId}`, profile: 'default' };
}

describe('HostRequests with scopes (the invocation registry of each plugin process)', () => {
  const box = new AesGcmSecretBox(randomBytes(32));
  let store: InMemoryPluginStore;
  let sessions: HostSessions;
  let host: HostRequests;
  let process: OpenHostSession;

  function start(pluginId = 'acme.a', capabilities = { state: true, secrets: true }): OpenHostSession {
    const config = sealConfiguration(box, pluginId, { api_key: 'instance-key', region: 'eu' });
    return sessions.open({ pluginId, version: '1.0.0', capabilities, config });
  }

  const workspace = (invocationId: string): HostReach => ({ scope: 'workspace', invocationId });
  const task = (invocationId: string): HostReach => ({ scope: 'task', invocationId });

  beforeEach(async () => {
    store = new InMemoryPluginStore();
    await installed(store, 'acme.a', 'acme.b');
    sessions = new HostSessions(new CryptoIdGenerator());
    host = new HostRequests(sessions, store, store, box, new CapturingLogger());
    process = start();
  });

  it('keeps WORKSPACE entries per workspace and TASK entries per task of the call named, never from the plugin', async () => {
    process.admit(binding('inv-1', 'w1', 't1'));
    process.admit(binding('inv-2', 'w2', 't1'));
    process.admit(binding('inv-3', 'w1', 't2'));
    await host.setState(process.token, 'notes', '"w1"', workspace('inv-1'));
    await host.setState(process.token, 'notes', '"w2"', workspace('inv-2'));
    await host.setState(process.token, 'notes', '"instance"');
    await host.setSecret(process.token, 'token', 'task-one', task('inv-1'));
    expect(await host.getState(process.token, 'notes', workspace('inv-3'))).toEqual({ found: true, valueJson: '"w1"' });
    expect(await host.getState(process.token, 'notes', workspace('inv-2'))).toEqual({ found: true, valueJson: '"w2"' });
    expect(await host.getState(process.token, 'notes')).toEqual({ found: true, valueJson: '"instance"' });
    expect(await host.getSecret(process.token, 'token', task('inv-1'))).toEqual({ found: true, value: 'task-one' });
    // Same task id, another workspace: another task.
    expect(await host.getSecret(process.token, 'token', task('inv-2'))).toEqual({ found: false, value: '' });
    expect(await host.getSecret(process.token, 'token', task('inv-3'))).toEqual({ found: false, value: '' });
    expect(await store.getState(workspaceOwner('acme.a', 'w2'), 'notes')).toBe('"w2"');
    expect(JSON.stringify(await store.getSecret(taskOwner('acme.a', 'w1', 't1'), 'token'))).not.toContain('task-one');
    expect((await host.listState(process.token, '', 0, '', workspace('inv-1'))).keys).toEqual(['notes']);
    expect(await host.deleteState(process.token, 'notes', workspace('inv-1'))).toBe(true);
    expect(await host.deleteSecret(process.token, 'token', task('inv-1'))).toBe(true);
  });

  it('refuses a WORKSPACE or TASK request without an invocation id with INVOCATION_REQUIRED', async () => {
    for (const reach of [workspace(''), task('')]) {
      expect(await codeOf(host.getState(process.token, 'k', reach))).toBe('INVOCATION_REQUIRED');
      expect(await codeOf(host.setSecret(process.token, 'k', 'v', reach))).toBe('INVOCATION_REQUIRED');
    }
  });

  it('refuses an invocation id that is not in flight to this very process with INVOCATION_NOT_IN_FLIGHT, whatever the scope', async () => {
    const other = start('acme.b');
    other.admit(binding('inv-b', 'w1'));
    const ended = process.admit(binding('inv-old', 'w1'));
    ended();
    const instanceNamed: HostReach = { scope: 'instance', invocationId: 'inv-b' };
    for (const reach of [workspace('inv-b'), task('inv-b'), instanceNamed, workspace('inv-old'), workspace('never')]) {
      expect(await codeOf(host.getState(process.token, 'k', reach))).toBe('INVOCATION_NOT_IN_FLIGHT');
    }
    expect(await codeOf(host.getConfig(process.token, 'inv-b'))).toBe('INVOCATION_NOT_IN_FLIGHT');
    // A restarted process has a new token, and its old calls are gone with the old one.
    process.admit(binding('inv-4', 'w1'));
    process.close();
    expect(await codeOf(host.getState(process.token, 'k', workspace('inv-4')))).toBe('HOST_TOKEN_INVALID');
  });

  it('checks the token and the capability before the scope, and refuses an unknown scope with SCOPE_UNKNOWN', async () => {
    const unknown: HostReach = { scope: 'unrecognised', invocationId: '' };
    expect(await codeOf(host.getState('wrong', 'k', unknown))).toBe('HOST_TOKEN_INVALID');
    const stateless = start('acme.b', { state: false, secrets: false });
    expect(await codeOf(host.getState(stateless.token, 'k', unknown))).toBe('CAPABILITY_NOT_GRANTED');
    expect(await codeOf(host.getState(process.token, 'k', unknown))).toBe('SCOPE_UNKNOWN');
    expect(await codeOf(host.getState(process.token, 'k', { scope: 'unrecognised', invocationId: 'never' }))).toBe('SCOPE_UNKNOWN');
  });

  it("answers GetConfig merged with the call's workspace overrides as stored now, and the instance configuration without an id", async () => {
    await store.transaction((tx) => tx.saveWorkspaceConfig('acme.a', 'w1', sealWorkspaceConfiguration(box, 'acme.a', 'w1', { api_key: 'w1-key' })));
    process.admit(binding('inv-1', 'w1'));
    process.admit(binding('inv-2', 'w2'));
    expect(JSON.parse(await host.getConfig(process.token, 'inv-1'))).toEqual({ api_key: 'w1-key', region: 'eu' });
    expect(JSON.parse(await host.getConfig(process.token, 'inv-2'))).toEqual({ api_key: 'instance-key', region: 'eu' });
    expect(JSON.parse(await host.getConfig(process.token))).toEqual({ api_key: 'instance-key', region: 'eu' });
    await store.transaction((tx) => tx.saveWorkspaceConfig('acme.a', 'w1', sealWorkspaceConfiguration(box, 'acme.a', 'w1', { region: 'us' })));
    expect(JSON.parse(await host.getConfig(process.token, 'inv-1'))).toEqual({ api_key: 'instance-key', region: 'us' });
  });

  it('counts the key limit per (plugin, scope, scope id)', async () => {
    process.admit(binding('inv-1', 'w1'));
    process.admit(binding('inv-2', 'w2'));
    for (let i = 0; i < LIMITS.hostKeysPerPlugin; i++) await store.putState(workspaceOwner('acme.a', 'w1'), `k${i}`, '0', LIMITS.hostKeysPerPlugin);
    expect(await codeOf(host.setState(process.token, 'one-more', '1', workspace('inv-1')))).toBe('KEY_LIMIT_REACHED');
    await host.setState(process.token, 'one-more', '1', workspace('inv-2'));
    await host.setState(process.token, 'one-more', '1');
  }, 20_000);
});
