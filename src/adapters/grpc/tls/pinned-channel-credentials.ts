import { createSecureContext, checkServerIdentity } from 'node:tls';
import { credentials } from '@grpc/grpc-js';
import type { ChannelCredentials, ChannelOptions } from '@grpc/grpc-js';
import { certificatePem, type SelfSignedCertificate } from '@toolport/plugin-sdk/protocol';

/** go-plugin's client checks the plugin's certificate against this name, whatever the address. */
export const PLUGIN_SERVER_NAME = 'localhost';

/** Channel options that go with pinnedChannelCredentials: SNI and the name check use `localhost`. */
export const PINNED_CHANNEL_OPTIONS: ChannelOptions = { 'grpc.ssl_target_name_override': PLUGIN_SERVER_NAME };

/**
 * Mutual TLS to one plugin process (go-plugin's AutoMTLS, docs/plugin-protocol.md §4): the host presents the
 * certificate it made for this start, and accepts exactly the certificate the plugin printed
 * in its handshake, byte for byte, which must also name `localhost`. TLS 1.2 at least.
 */
export function pinnedChannelCredentials(client: SelfSignedCertificate, serverCertificate: Buffer): ChannelCredentials {
  const context = createSecureContext({
    ca: certificatePem(serverCertificate),
    cert: client.certPem,
    key: client.keyPem,
    minVersion: 'TLSv1.2',
  });
  return credentials.createFromSecureContext(context, {
    checkServerIdentity: (_host, presented) => {
      if (!presented.raw?.equals(serverCertificate)) {
        return new Error('the plugin presented a certificate other than the one in its handshake');
      }
      return checkServerIdentity(PLUGIN_SERVER_NAME, presented);
    },
  });
}
