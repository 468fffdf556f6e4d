import { randomBytes } from 'node:crypto';
import { InMemoryPluginStore } from '../../src/adapters/memory/in-memory-plugin-store';
import { AesGcmSecretBox } from '../../src/adapters/system/aes-gcm-secret-box';
import { CryptoIdGenerator } from '../../src/adapters/system/crypto-id-generator';
import { HostRequests } from '../../src/application/host/host-requests';
import { HostSessions } from '../../src/application/host/host-sessions';
import type { HostAccess, HostGrant, HostProfile } from '../../src/application/ports/host-access';
import { sealConfiguration } from '../../src/application/plugins/plugin-configuration';
import type { JsonObject } from '../../src/domain/json';
import { CapturingLogger } from '../support/capturing-logger';

/** What the Host API answered a call: its value, or why there is none. */
export type HostAnswer =
  | { ok: true; value: string }
  /** HOST_TOKEN_INVALID and the other Host codes as the core names them; UNREACHABLE: nothing serves that address. */
  | { ok: false; refusal: string };

/** The core a HostAccess adapter serves: the Host tokens in force and the requests they make. */
export interface HostCore {
  sessions: HostSessions;
  requests: HostRequests;
}

/** One HostAccess adapter under test, and a plugin's side of it. */
export interface HostAccessFixture {
  access: HostAccess;
  /** Calls GetConfig at `address` with `token`, as a plugin process given that grant would. */
  getConfig(address: string, token: string): Promise<HostAnswer>;
  /** Calls GetState(`key`) the same way (needs the `state` capability). */
  getState(address: string, token: string, key: string): Promise<HostAnswer>;
  cleanup(): Promise<void>;
}

export type HostAccessFixtureFactory = (core: HostCore) => HostAccessFixture | Promise<HostAccessFixture>;

/**
 * The HostAccess contract (the port's promises and docs/plugin-protocol.md §13: a fresh grant per
 * process start whose token names its plugin and works exactly until it is released, an
 * address that closes with it, close releasing everything), run with `describe.each` over
 * `[name, factory]` rows. The rows share one real core (HostSessions, HostRequests over an
 * in-memory store and a real AES-GCM box), so only the adapter differs.
 */
export function describeHostAccessContract(rows: Array<[string, HostAccessFixtureFactory]>): void {
  describe.each(rows)('HostAccess contract: %s', (_name, factory) => {
    let fixture: HostAccessFixture;
    let access: HostAccess;
    let sessions: HostSessions;
    const box = new AesGcmSecretBox(randomBytes(32));
    const store = new InMemoryPluginStore();

    function profile(pluginId: string, config: JsonObject | null, capabilities = { state: false, secrets: false }): HostProfile {
      return { pluginId, version: '1.0.0', capabilities, config: config === null ? null : sealConfiguration(box, pluginId, config) };
    }

    beforeEach(async () => {
      sessions = new HostSessions(new CryptoIdGenerator());
      const requests = new HostRequests(sessions, store, store, box, new CapturingLogger());
      fixture = await factory({ sessions, requests });
      access = fixture.access;
    });

    afterEach(async () => {
      await access.close();
      await fixture.cleanup();
    });

    async function configOf(grant: HostGrant): Promise<HostAnswer> {
      return fixture.getConfig(grant.address, grant.token);
    }

    it("answers a grant's token, at its address, with the configuration its profile was started with", async () => {
      const grant = await access.grant(profile('acme.tools', { region: 'eu', api_key: 'sk-live-1' }));
      expect(grant.address).not.toBe('');
      expect(grant.token.length).toBeGreaterThanOrEqual(32);
      expect(await configOf(grant)).toEqual({ ok: true, value: JSON.stringify({ region: 'eu', api_key: 'sk-live-1' }) });
      const bare = await access.grant(profile('acme.bare', null));
      expect(await configOf(bare)).toEqual({ ok: true, value: '{}' });
    });

    it('makes each grant fresh: two starts of one plugin get their own token and address, each naming its own profile', async () => {
      const first = await access.grant(profile('acme.tools', { start: 1 }));
      const second = await access.grant(profile('acme.tools', { start: 2 }));
      const other = await access.grant(profile('other.plugin', { mine: true }, { state: true, secrets: false }));
      expect(new Set([first.token, second.token, other.token]).size).toBe(3);
      expect(new Set([first.address, second.address, other.address]).size).toBe(3);
      expect(await configOf(first)).toEqual({ ok: true, value: '{"start":1}' });
      expect(await configOf(second)).toEqual({ ok: true, value: '{"start":2}' });
      expect(await configOf(other)).toEqual({ ok: true, value: '{"mine":true}' });
      // What the token may do is its own profile's: acme.tools was granted no state.
      expect(await fixture.getState(first.address, first.token, 'k')).toEqual({ ok: false, refusal: 'CAPABILITY_NOT_GRANTED' });
      expect(await fixture.getState(other.address, other.token, 'k')).toEqual({ ok: true, value: '' });
    });

    it('refuses a token it never gave, an empty one and one of another start, with HOST_TOKEN_INVALID', async () => {
      const grant = await access.grant(profile('acme.tools', { region: 'eu' }));
      expect(await fixture.getConfig(grant.address, 'not-a-token-it-gave')).toEqual({ ok: false, refusal: 'HOST_TOKEN_INVALID' });
      expect(await fixture.getConfig(grant.address, '')).toEqual({ ok: false, refusal: 'HOST_TOKEN_INVALID' });
      expect(await fixture.getConfig(grant.address, `${grant.token}x`)).toEqual({ ok: false, refusal: 'HOST_TOKEN_INVALID' });
    });

    it('ends a released grant: its token stops working (even at another address) and its address closes; others keep working', async () => {
      const released = await access.grant(profile('acme.tools', { start: 1 }));
      const kept = await access.grant(profile('acme.tools', { start: 2 }));
      await released.release();
      expect(sessions.find(released.token)).toBeUndefined();
      expect(await fixture.getConfig(kept.address, released.token)).toEqual({ ok: false, refusal: 'HOST_TOKEN_INVALID' });
      expect(await fixture.getConfig(released.address, kept.token)).toEqual({ ok: false, refusal: 'UNREACHABLE' });
      expect(await configOf(kept)).toEqual({ ok: true, value: '{"start":2}' });
    });

    it('takes a release more than once as one', async () => {
      const grant = await access.grant(profile('acme.tools', null));
      const kept = await access.grant(profile('acme.tools', { kept: true }));
      await grant.release();
      await expect(grant.release()).resolves.toBeUndefined();
      await Promise.all([grant.release(), grant.release()]);
      expect(await configOf(kept)).toEqual({ ok: true, value: '{"kept":true}' });
      expect(sessions.size).toBe(1);
    });

    it('closes every open grant on close, more than once, and grants nothing after', async () => {
      const grants = await Promise.all(['acme.tools', 'other.plugin', 'third.plugin', 'acme.tools'].map((id) => access.grant(profile(id, { id }))));
      await access.close();
      await expect(access.close()).resolves.toBeUndefined();
      expect(sessions.size).toBe(0);
      for (const grant of grants) {
        expect(sessions.find(grant.token)).toBeUndefined();
        expect(await configOf(grant)).toEqual({ ok: false, refusal: 'UNREACHABLE' });
        await expect(grant.release()).resolves.toBeUndefined();
      }
      await expect(access.grant(profile('acme.tools', null))).rejects.toThrow(/closed/);
      expect(sessions.size).toBe(0);
    });
  });
}
