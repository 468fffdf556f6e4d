import { ServerCredentials } from '@grpc/grpc-js';
import type { SelfSignedCertificate } from './self-signed-certificate';

/**
 * Server side of go-plugin's AutoMTLS, as the SDK serves it: its own certificate, and a client
 * certificate required and verified against the one certificate the host passed in
 * `PLUGIN_CLIENT_CERT`; TLS 1.2 at least (go-plugin's server sets the same floor).
 *
 * grpc-js's createSsl takes no minimum version, so this fills the same two option sets it
 * fills (the http2 server's and the secure context's) with `minVersion` added.
 */
export class ClientVerifyingServerCredentials extends ServerCredentials {
  constructor(clientCertificatePem: string, own: SelfSignedCertificate) {
    super(
      { requestCert: true, rejectUnauthorized: true, minVersion: 'TLSv1.2' },
      { ca: clientCertificatePem, cert: own.certPem, key: own.keyPem, minVersion: 'TLSv1.2' },
    );
  }

  _equals(other: ServerCredentials): boolean {
    return other === this;
  }
}
