import type { HostCallError } from '../../../src/domain/errors';
import type { JsonObject } from '../../../src/domain/json';
import { createBackendHarness, type BackendHarness } from '../../support/backend-harness';
import { manifestFixture } from '../../support/fixtures';
import { waitUntil } from '../../support/invocation';
import { instanceOwner } from '../../../src/domain/host-entry-owner';

async function codeOf(promise: Promise<unknown>): Promise<string> {
  const error = (await promise.then(
    () => {
      throw new Error('expected the Host call to be refused');
    },
    (e: unknown) => e,
  )) as HostCallError;
  return error.code;
}

describe('HostRequests (the Host API as a plugin process sees it)', () => {
  let h: BackendHarness;

  beforeEach(async () => {
    h = await createBackendHarness();
  });

  afterEach(() => h.shutdown());

  async function install(id: string, capabilities?: JsonObject): Promise<string> {
    await h.install.execute({ path: h.addPackage(manifestFixture(id, '1.0.0', ['echo', 'crash'], capabilities ? { capabilities } : {})) });
    return tokenOf(id);
  }

  function tokenOf(id: string): string {
    const entry = [...h.hostAccess.open].reverse().find((e) => e.profile.pluginId === id);
    if (!entry) throw new Error(`no Host grant open for ${id}`);
    return entry.grant.token;
  }

  it('refuses a missing or wrong token with HOST_TOKEN_INVALID', async () => {
    await install('acme.a', { state: true });
    expect(await codeOf(h.host.getConfig(''))).toBe('HOST_TOKEN_INVALID');
    expect(await codeOf(h.host.getState('not-a-token', 'k'))).toBe('HOST_TOKEN_INVALID');
  });

  it('gives each process start a fresh token that stops working when the process is gone', async () => {
    const first = await install('acme.a', { state: true });
    await h.host.setState(first, 'k', '1');
    const instance = h.running.instanceOf('acme.a')!;
    h.runtime.crash(instance);
    expect(await codeOf(h.host.getState(first, 'k'))).toBe('HOST_TOKEN_INVALID');
    await waitUntil(() => h.hostAccess.open.some((e) => e.profile.pluginId === 'acme.a'), 2000, 'the restarted process to get a grant');
    const second = tokenOf('acme.a');
    expect(second).not.toBe(first);
    expect(await h.host.getState(second, 'k')).toEqual({ found: true, valueJson: '1' });
    await h.disable.execute('acme.a');
    expect(await codeOf(h.host.getState(second, 'k'))).toBe('HOST_TOKEN_INVALID');
    expect(h.hostSessions.size).toBe(0);
  });

  it('acts for the plugin its token names only', async () => {
    const a = await install('acme.a', { state: true });
    const b = await install('acme.b', { state: true });
    await h.host.setState(a, 'shared-name', '"a"');
    expect(await h.host.getState(b, 'shared-name')).toEqual({ found: false, valueJson: '' });
  });

  it('answers GetConfig without any capability, and state and secret calls only with theirs (CAPABILITY_NOT_GRANTED naming it)', async () => {
    const none = await install('acme.none');
    expect(await h.host.getConfig(none)).toBe('{}');
    for (const call of [h.host.getState(none, 'k'), h.host.setState(none, 'k', '1'), h.host.deleteState(none, 'k'), h.host.listState(none, '', 0, '')]) {
      expect(await codeOf(call)).toBe('CAPABILITY_NOT_GRANTED');
    }
    await expect(h.host.getSecret(none, 'k')).rejects.toThrow(/"secrets"/);
    const stateOnly = await install('acme.state', { state: true });
    await h.host.setState(stateOnly, 'k', '1');
    expect(await codeOf(h.host.setSecret(stateOnly, 'k', 'v'))).toBe('CAPABILITY_NOT_GRANTED');
  });

  it('refuses a bad key or value with ENTRY_INVALID, before touching the store', async () => {
    const token = await install('acme.a', { state: true, secrets: true });
    for (const call of [
      h.host.getState(token, ''),
      h.host.setState(token, '../etc', '1'),
      h.host.setState(token, 'k', 'not json'),
      h.host.setState(token, 'k', JSON.stringify('x'.repeat(70000))),
      h.host.setSecret(token, 'k', 'x'.repeat(16385)),
      h.host.listState(token, 'bad prefix', 0, ''),
      h.host.listState(token, '', 0, 'forged'),
    ]) {
      expect(await codeOf(call)).toBe('ENTRY_INVALID');
    }
    expect(await h.store.listStateKeys(instanceOwner('acme.a'), '', undefined, 10)).toEqual([]);
  });

  it('keeps state, answers found/deleted, and pages ListState by prefix in byte order', async () => {
    const token = await install('acme.a', { state: true });
    await h.host.setState(token, 'note/1', '{"text":"one"}');
    expect(await h.host.getState(token, 'note/1')).toEqual({ found: true, valueJson: '{"text":"one"}' });
    expect(await h.host.deleteState(token, 'note/1')).toBe(true);
    expect(await h.host.deleteState(token, 'note/1')).toBe(false);
    const keys = Array.from({ length: 2500 }, (_, i) => `page/${String(i).padStart(4, '0')}`);
    for (const key of keys) await h.host.setState(token, key, '0');
    await h.host.setState(token, 'other', '0');
    const seen: string[] = [];
    let pageToken = '';
    let pages = 0;
    do {
      const page = await h.host.listState(token, 'page/', 5000, pageToken);
      expect(page.keys.length).toBeLessThanOrEqual(1000);
      seen.push(...page.keys);
      pageToken = page.nextPageToken;
      pages += 1;
    } while (pageToken !== '');
    expect(pages).toBe(3);
    expect(seen).toEqual(keys);
    const exact = await h.host.listState(token, 'page/', 2500, '');
    expect(exact.keys).toHaveLength(1000);
    const last = await h.host.listState(token, 'page/24', 100, '');
    expect(last).toEqual({ keys: keys.slice(2400), nextPageToken: '' });
  });

  it('refuses a new key once the plugin holds 10000 with KEY_LIMIT_REACHED, still replacing existing ones', async () => {
    const token = await install('acme.a', { state: true });
    for (let i = 0; i < 10000; i++) await h.store.putState(instanceOwner('acme.a'), `k${i}`, '0', 10000);
    expect(await codeOf(h.host.setState(token, 'one-more', '1'))).toBe('KEY_LIMIT_REACHED');
    await h.host.setState(token, 'k1', '2');
    expect(await h.host.getState(token, 'k1')).toEqual({ found: true, valueJson: '2' });
  }, 20_000);

  it('keeps plugin secrets sealed at rest and answers them in clear to their plugin only', async () => {
    const token = await install('acme.a', { secrets: true });
    await h.host.setSecret(token, 'oauth/refresh', 'r3fresh-T0ken');
    expect(await h.host.getSecret(token, 'oauth/refresh')).toEqual({ found: true, value: 'r3fresh-T0ken' });
    expect(JSON.stringify(await h.store.getSecret(instanceOwner('acme.a'), 'oauth/refresh'))).not.toContain('r3fresh');
    const other = await install('acme.b', { secrets: true });
    expect(await h.host.getSecret(other, 'oauth/refresh')).toEqual({ found: false, value: '' });
    expect(await h.host.deleteSecret(token, 'oauth/refresh')).toBe(true);
    expect(await h.host.getSecret(token, 'oauth/refresh')).toEqual({ found: false, value: '' });
  });

  it('refuses a write while its plugin has no record (NO_PLUGIN_RECORD), and every call when the store is closed (HOST_STOPPING)', async () => {
    const token = await install('acme.a', { state: true });
    await h.store.transaction((tx) => tx.deletePlugin('acme.a'));
    expect(await codeOf(h.host.setState(token, 'k', '1'))).toBe('NO_PLUGIN_RECORD');
    // The configuration comes with the process: a first install's process reads it before the record exists.
    expect(JSON.parse(await h.host.getConfig(token))).toEqual({});
    expect(await h.store.getState(instanceOwner('acme.a'), 'k')).toBeUndefined();
    const other = await install('acme.b', { state: true });
    await h.store.close();
    expect(await codeOf(h.host.getState(other, 'k'))).toBe('HOST_STOPPING');
  });
});
