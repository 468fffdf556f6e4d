import {
  parseClientFirst,
  parseScramVerifier,
  ScramClient,
  scramVerifier,
  serverFirst,
  verifyClientFinal,
  type ScramVerifier,
} from '../../../src/adapters/websocket/scram';

/** RFC 7677 §3: user "user", password "pencil". */
const RFC = {
  clientNonce: 'rOprNGfwEbeRWgbNEkqO',
  serverNonce: '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0',
  salt: Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'),
  clientFirst: 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO',
  serverFirst: 'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
  clientFinal: 'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=',
  serverFinal: 'v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=',
};

function verifierOf(token: string, salt?: Buffer): ScramVerifier {
  const parsed = parseScramVerifier(scramVerifier(token, salt));
  if (!parsed.ok) throw new Error(parsed.reason);
  return parsed.value;
}

/** Runs one exchange; what each side concluded. */
function exchange(clientToken: string, verifier: ScramVerifier, tamper: { serverFinal?: (m: string) => string; clientFinal?: (m: string) => string } = {}) {
  const client = new ScramClient('session-id', clientToken);
  const first = parseClientFirst(client.first());
  if (!first.ok) throw new Error(first.reason);
  const challenge = serverFirst(verifier, first.value.nonce);
  const final = client.final(challenge);
  if (!final.ok) throw new Error(final.reason);
  const checked = verifyClientFinal(verifier, first.value.bare, challenge, (tamper.clientFinal ?? ((m) => m))(final.value));
  const serverAccepted = checked.ok;
  const clientAccepted = checked.ok && client.verify((tamper.serverFinal ?? ((m) => m))(checked.value));
  return { serverAccepted, clientAccepted };
}

describe('SCRAM-SHA-256 (link authentication)', () => {
  it("reproduces RFC 7677's example exchange on both sides", () => {
    const client = new ScramClient('user', 'pencil', RFC.clientNonce);
    expect(client.first()).toBe(RFC.clientFirst);
    expect(client.final(RFC.serverFirst)).toEqual({ ok: true, value: RFC.clientFinal });
    expect(client.verify(RFC.serverFinal)).toBe(true);

    const verifier = verifierOf('pencil', RFC.salt);
    const first = parseClientFirst(RFC.clientFirst);
    expect(first).toEqual({ ok: true, value: { username: 'user', nonce: RFC.clientNonce, bare: 'n=user,r=rOprNGfwEbeRWgbNEkqO' } });
    expect(serverFirst(verifier, RFC.clientNonce, RFC.serverNonce)).toBe(RFC.serverFirst);
    expect(verifyClientFinal(verifier, 'n=user,r=rOprNGfwEbeRWgbNEkqO', RFC.serverFirst, RFC.clientFinal)).toEqual({ ok: true, value: RFC.serverFinal });
  });

  it('stores a verifier in which the token does not appear, salted afresh each time', () => {
    const token = 'AJFpvq9jokLaz5K7s0geG8f9wkKSiUi0Cj7_ygO2_Kc';
    const a = scramVerifier(token);
    const b = scramVerifier(token);
    expect(a).toMatch(/^SCRAM-SHA-256\$4096:[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+:[A-Za-z0-9+/=]+$/);
    expect(a).not.toContain(token);
    expect(a).not.toBe(b);
    expect(parseScramVerifier('sha256:abc').ok).toBe(false);
  });

  it('links when both sides hold the same session', () => {
    expect(exchange('the-token', verifierOf('the-token'))).toEqual({ serverAccepted: true, clientAccepted: true });
  });

  it('refuses a client with another token', () => {
    expect(exchange('another-token', verifierOf('the-token'))).toEqual({ serverAccepted: false, clientAccepted: false });
  });

  it('lets no impostor server pass: without the verifier it cannot sign the exchange', () => {
    // The impostor answers with a verifier of its own making: the client's proof fails
    // against it, and whatever it signs, the client refuses.
    const client = new ScramClient('session-id', 'the-token');
    const first = parseClientFirst(client.first());
    if (!first.ok) throw new Error(first.reason);
    const impostor = verifierOf('a-guess');
    const final = client.final(serverFirst(impostor, first.value.nonce));
    expect(final.ok).toBe(true);
    expect(verifyClientFinal(impostor, first.value.bare, serverFirst(impostor, first.value.nonce), final.ok ? final.value : '').ok).toBe(false);
    expect(client.verify(`v=${Buffer.alloc(32).toString('base64')}`)).toBe(false);
    expect(client.verify('e=other-error')).toBe(false);
  });

  it('refuses a tampered proof and a replayed one', () => {
    const verifier = verifierOf('the-token');
    const flip = (m: string): string => m.replace(/p=(.)/, (_all, c: string) => `p=${c === 'A' ? 'B' : 'A'}`);
    expect(exchange('the-token', verifier, { clientFinal: flip }).serverAccepted).toBe(false);

    const client = new ScramClient('session-id', 'the-token');
    const first = parseClientFirst(client.first());
    if (!first.ok) throw new Error(first.reason);
    const final = client.final(serverFirst(verifier, first.value.nonce, 'first-server-nonce'));
    if (!final.ok) throw new Error(final.reason);
    // The same proof against a new exchange (a new server nonce) does not pass.
    const replayed = verifyClientFinal(verifier, first.value.bare, serverFirst(verifier, first.value.nonce, 'second-server-nonce'), final.value);
    expect(replayed).toEqual({ ok: false, reason: 'the nonce does not match this exchange' });
  });

  it.each([
    ['a nonce that does not extend ours', (nonce: string) => `r=other${nonce},s=AAAA,i=4096`],
    ['an iteration count made to burn CPU', (nonce: string) => `r=${nonce}x,s=AAAA,i=100000000`],
    ['too few iterations', (nonce: string) => `r=${nonce}x,s=AAAA,i=1`],
    ['a missing salt', (nonce: string) => `r=${nonce}x,i=4096`],
    ['a mandatory extension', (nonce: string) => `m=ext,r=${nonce}x,s=AAAA,i=4096`],
  ])('the client refuses a server-first-message with %s', (_label, make) => {
    const client = new ScramClient('session-id', 'the-token', 'client-nonce');
    expect(client.final(make('client-nonce')).ok).toBe(false);
    expect(client.verify('v=anything')).toBe(false);
  });

  it.each([
    ['channel binding asked for', 'p=tls-unique,,n=x,r=abc'],
    ['no nonce', 'n,,n=x'],
    ['a nonce with a comma-free but empty value', 'n,,n=x,r='],
    ['a badly escaped name', 'n,,n=a=b,r=abc'],
  ])('the server refuses a client-first-message with %s', (_label, message) => {
    expect(parseClientFirst(message).ok).toBe(false);
  });

  it('escapes = and , in user names', () => {
    const client = new ScramClient('a=b,c', 'x', 'n0');
    expect(client.first()).toBe('n,,n=a=3Db=2Cc,r=n0');
    expect(parseClientFirst(client.first())).toMatchObject({ ok: true, value: { username: 'a=b,c' } });
  });
});
