import { execFileSync } from 'node:child_process';
import { X509Certificate, createPrivateKey } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createSelfSignedCertificate } from '@toolport/plugin-sdk/protocol';

/** The per-start certificate as TLS stacks will read it: Node's parser and openssl's verifier. */
describe('createSelfSignedCertificate', () => {
  const dir = mkdtempSync(join(tmpdir(), 'toolport-cert-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a currently valid, self-signed certificate naming localhost, for server and client auth', () => {
    const made = createSelfSignedCertificate();
    const certificate = new X509Certificate(made.certPem);
    expect(certificate.raw.equals(made.der)).toBe(true);
    expect(certificate.checkHost('localhost')).toBe('localhost');
    expect(certificate.subjectAltName).toBe('DNS:localhost');
    expect(certificate.keyUsage.sort()).toEqual(['1.3.6.1.5.5.7.3.1', '1.3.6.1.5.5.7.3.2']);
    expect(certificate.ca).toBe(true);
    expect(certificate.verify(certificate.publicKey)).toBe(true);
    expect(certificate.checkPrivateKey(createPrivateKey(made.keyPem))).toBe(true);
    const now = Date.now();
    expect(new Date(certificate.validFrom).getTime()).toBeLessThanOrEqual(now);
    expect(new Date(certificate.validTo).getTime()).toBeGreaterThan(now + 365 * 24 * 3600 * 1000);
  });

  it('is fresh on every call: another key and serial', () => {
    const [a, b] = [createSelfSignedCertificate(), createSelfSignedCertificate()].map((made) => new X509Certificate(made.certPem));
    expect(a.serialNumber).not.toBe(b.serialNumber);
    expect(a.publicKey.export({ type: 'spki', format: 'der' }).equals(b.publicKey.export({ type: 'spki', format: 'der' }))).toBe(false);
  });

  it.each(['sslclient', 'sslserver'])('passes openssl verify -purpose %s with itself as the only trusted certificate', (purpose) => {
    const file = join(dir, `${purpose}.pem`);
    writeFileSync(file, createSelfSignedCertificate().certPem);
    expect(execFileSync('openssl', ['verify', '-CAfile', file, '-purpose', purpose, file], { encoding: 'utf8' }).trim()).toBe(`${file}: OK`);
  });

  it('writes GeneralizedTime for validity after 2049, as RFC 5280 asks', () => {
    const certificate = new X509Certificate(createSelfSignedCertificate(new Date('2045-06-01T00:00:00Z')).certPem);
    expect(new Date(certificate.validTo).getUTCFullYear()).toBe(2055);
  });
});
