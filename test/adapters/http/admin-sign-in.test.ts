import { AdminSignIn, CREDENTIAL_PREFIX } from '../../../src/adapters/http/admin-sign-in';
import { SCRAM_MECHANISM, ScramClient } from '../../../src/adapters/shared/scram';
import type { SignedIn, SignInChallenge } from '../../../src/api';

const TOKEN = 'a-very-random-admin-token-0123456789abcdef';

/** One whole exchange as a client holding `token`: the answer of finish, and whether the backend proved itself. */
function signIn(backend: AdminSignIn, token = TOKEN): { signed: SignedIn | undefined; proved: boolean } {
  const client = new ScramClient('admin', token);
  const challenge = backend.begin({ mechanism: SCRAM_MECHANISM, message: client.first() }) as SignInChallenge;
  const proof = client.final(challenge.message);
  if (!proof.ok) throw new Error(proof.reason);
  const signed = backend.finish({ exchange: challenge.exchange, message: proof.value });
  return { signed, proved: signed !== undefined && client.verify(signed.message) };
}

describe('the admin sign-in (SCRAM-SHA-256 over HTTP)', () => {
  it('proves the backend to a client holding the token and hands out a credential this process accepts', () => {
    const backend = new AdminSignIn(TOKEN);
    const { signed, proved } = signIn(backend);
    expect(proved).toBe(true);
    expect(signed!.credential.startsWith(CREDENTIAL_PREFIX)).toBe(true);
    expect(signed!.instance_id).toBe(backend.instanceId);
    expect(backend.authorizes(`Bearer ${signed!.credential}`)).toBe(true);
    // Scripts keep the admin token itself.
    expect(backend.authorizes(`Bearer ${TOKEN}`)).toBe(true);
  });

  it('refuses a client with another token, and a credential is useless against another backend process', () => {
    const backend = new AdminSignIn(TOKEN);
    expect(signIn(backend, 'not-the-token-but-just-as-long-0123456789').signed).toBeUndefined();
    const { signed } = signIn(backend);
    // Another process (a restart, say) with the same admin token knows nothing of it.
    const restarted = new AdminSignIn(TOKEN);
    expect(restarted.authorizes(`Bearer ${signed!.credential}`)).toBe(false);
    expect(restarted.instanceId).not.toBe(backend.instanceId);
  });

  it('accepts a credential only for its lifetime, and each exchange once', () => {
    let now = 1_000_000;
    const backend = new AdminSignIn(TOKEN, { credentialTtlMs: 60_000, now: () => now });
    const { signed } = signIn(backend);
    now += 59_000;
    expect(backend.authorizes(`Bearer ${signed!.credential}`)).toBe(true);
    now += 2_000;
    expect(backend.authorizes(`Bearer ${signed!.credential}`)).toBe(false);

    const client = new ScramClient('admin', TOKEN);
    const challenge = backend.begin({ mechanism: SCRAM_MECHANISM, message: client.first() }) as SignInChallenge;
    const proof = client.final(challenge.message);
    if (!proof.ok) throw new Error(proof.reason);
    expect(backend.finish({ exchange: challenge.exchange, message: 'c=biws,r=x,p=AAAA' })).toBeUndefined();
    // The failed guess spent the exchange: the right proof is too late for it.
    expect(backend.finish({ exchange: challenge.exchange, message: proof.value })).toBeUndefined();
  });

  it('says what is wrong with a malformed opening', () => {
    const backend = new AdminSignIn(TOKEN);
    expect(backend.begin({ mechanism: 'PLAIN', message: 'n,,n=admin,r=abc' })).toMatch(/mechanism/);
    expect(backend.begin({ mechanism: SCRAM_MECHANISM, message: 'n,,n=root,r=abc' })).toMatch(/user name/);
    expect(backend.begin(null)).toMatch(/mechanism/);
    expect(backend.authorizes(`Bearer ${CREDENTIAL_PREFIX}made-up`)).toBe(false);
    expect(backend.authorizes(undefined)).toBe(false);
  });
});
