import { parseHandshake } from '../../../src/adapters/grpc/handshake';

describe('parseHandshake', () => {
  it.each([
    ['1|1|tcp|127.0.0.1:1234|grpc|', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    ['1|1|tcp|127.0.0.1:1234|grpc', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    ['1|1|tcp|127.0.0.1:1234|grpc||true', { network: 'tcp', address: '127.0.0.1:1234', target: '127.0.0.1:1234' }],
    ['1|1|unix|/tmp/plugin.sock|grpc|\r', { network: 'unix', address: '/tmp/plugin.sock', target: 'unix:///tmp/plugin.sock' }],
  ])('accepts %j', (line, endpoint) => {
    expect(parseHandshake(line)).toEqual({ ok: true, endpoint });
  });

  it.each([
    ['1|1|tcp|127.0.0.1:1234', 'expected 5 to 7'],
    ['1|1|tcp|127.0.0.1:1234|grpc||true|extra', 'expected 5 to 7'],
    ['2|1|tcp|127.0.0.1:1234|grpc|', 'core protocol version "2"'],
    ['1|3|tcp|127.0.0.1:1234|grpc|', 'plugin protocol version "3"'],
    ['1|1|tcp|127.0.0.1:1234|netrpc|', 'protocol "netrpc"'],
    ['1|1|tcp|127.0.0.1:1234|grpc|LS0tLS1CRUdJTg', 'mutual TLS is not supported'],
    ['1|1|udp|127.0.0.1:1234|grpc|', 'network "udp"'],
    ['1|1|tcp|127.0.0.1|grpc|', 'bad tcp address'],
    ['1|1|tcp|127.0.0.1:99999|grpc|', 'bad tcp address'],
    ['1|1|unix|relative.sock|grpc|', 'absolute path'],
  ])('refuses %j with a reason', (line, reason) => {
    const result = parseHandshake(line);
    expect(result.ok).toBe(false);
    expect(!result.ok && result.reason).toContain(reason);
  });

  it('shows at most the start of a long foreign line', () => {
    const result = parseHandshake('x'.repeat(10_000));
    expect(!result.ok && result.reason.length).toBeLessThan(300);
  });
});
