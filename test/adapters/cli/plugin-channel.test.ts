import { channelOf } from '../../../src/adapters/cli/commands/inspect-commands';

/** Issue 30 item 10: plugin info never calls a private unix socket "plaintext". */
describe('how plugin info names the channel to a plugin process', () => {
  it('says a unix socket is private, TCP without TLS is plaintext on loopback, and TLS is mutual TLS', () => {
    expect(channelOf({ tls: false, network: 'unix' })).toBe('a private unix socket (no TLS; only the backend user can open it)');
    expect(channelOf({ tls: false, network: 'unix' })).not.toContain('plaintext');
    expect(channelOf({ tls: false, network: 'tcp' })).toBe('plaintext TCP on 127.0.0.1 (other local users may reach it)');
    expect(channelOf({ tls: true, network: 'tcp' })).toBe('mutual TLS');
    expect(channelOf({ tls: true, network: 'unix' })).toBe('mutual TLS over a private unix socket');
  });
});
