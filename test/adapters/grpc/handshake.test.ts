import { parseHandshake } from '../../../src/adapters/grpc/handshake';
import { createSelfSignedCertificate } from '@toolport/plugin-sdk/protocol';

/** The 6th field as go-plugin's server writes it: DER in base64 without padding. */
const rawBase64 = (der: Buffer) => der.toString('base64').replace(/=+$/, '');

describe('parseHandshake', () => {
  it.each([
    ['1|1|tcp|127.0.0.1:1234|grpc|', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    ['1|1|tcp|127.0.0.1:1234|grpc', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    ['1|1|tcp|127.0.0.1:1234|grpc||true', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    ['1|1|unix|/tmp/plugin.sock|grpc|\r', { network: 'unix', address: '/tmp/plugin.sock', target: 'unix:///tmp/plugin.sock' }],
    // go-plugin's client reads a 6th field as a certificate only when it is longer than 50 characters.
    ['1|1|tcp|127.0.0.1:1234|grpc|LS0tLS1CRUdJTg', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    [`1|1|tcp|127.0.0.1:1234|grpc|${'A'.repeat(50)}`, { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
  ])('accepts %j', (line, endpoint) => {
    expect(parseHandshake(line)).toEqual({ ok: true, endpoint });
  });

  it.each([
    ['1|1|tcp|127.0.0.1:1234', 'expected 5 to 7'],
    ['1|1|tcp|127.0.0.1:1234|grpc||true|extra', 'expected 5 to 7'],
    ['2|1|tcp|127.0.0.1:1234|grpc|', 'core protocol version "2"'],
    ['1|3|tcp|127.0.0.1:1234|grpc|', 'plugin protocol version "3"'],
    ['1|1|tcp|127.0.0.1:1234|netrpc|', 'protocol "netrpc"'],
    [`1|1|tcp|127.0.0.1:1234|grpc|${'A'.repeat(51)}`, 'not a DER X.509 certificate'],
    [`1|1|tcp|127.0.0.1:1234|grpc|${'A'.repeat(60)}==`, "not unpadded standard base64 (Go's RawStdEncoding)"],
    [`1|1|tcp|127.0.0.1:1234|grpc|${'-_'.repeat(30)}`, "not unpadded standard base64 (Go's RawStdEncoding)"],
    ['1|1|udp|127.0.0.1:1234|grpc|', 'network "udp"'],
    ['1|1|tcp|127.0.0.1|grpc|', 'bad tcp address'],
    ['1|1|tcp|127.0.0.1:99999|grpc|', 'bad tcp address'],
    ['1|1|unix|relative.sock|grpc|', 'absolute path'],
  ])('refuses %j with a reason', (line, reason) => {
    const result = parseHandshake(line);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('reads a long 6th field as the server certificate, in unpadded base64', () => {
    const { der } = createSelfSignedCertificate();
    const result = parseHandshake(`1|1|tcp|127.0.0.1:1234|grpc|${rawBase64(der)}\n`);
    expect(result).toEqual({ ok: true, endpoint: { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234', serverCertificate: der } });
  });

  it('refuses a certificate that is not valid now', () => {
    const { der } = createSelfSignedCertificate(new Date('2001-01-01T00:00:00Z'));
    const result = parseHandshake(`1|1|unix|/tmp/p.sock|grpc|${rawBase64(der)}`);
    expect(!result.ok && result.reason).toContain('is not valid now');
  });

  it('shows at most the start of a long foreign line', () => {
    const result = parseHandshake('x'.repeat(10_000));
    expect(!result.ok && result.reason.length).toBeLessThan(300);
  });
});
