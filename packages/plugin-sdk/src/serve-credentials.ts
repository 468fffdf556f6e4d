import { X509Certificate } from 'node:crypto';
import { ServerCredentials } from '@grpc/grpc-js';
import { ClientVerifyingServerCredentials } from './tls/client-verifying-server-credentials';
import { createSelfSignedCertificate } from './tls/self-signed-certificate';

/** How the SDK serves: the gRPC credentials, and the 6th handshake field that goes with them. */
export interface ServeCredentials {
  credentials: ServerCredentials;
  /** The server certificate in Go's unpadded base64 (RawStdEncoding); '' when plaintext. */
  handshakeField: string;
}

/**
 * go-plugin's AutoMTLS on the plugin side: when the host set `PLUGIN_CLIENT_CERT`, serve TLS
 * with a certificate made now (never stored) and accept only clients presenting the host's
 * certificate; without it, plaintext, as go-plugin's own server does. A certificate that does
 * not parse is an error, never a silent fallback to plaintext.
 */
export function serveCredentials(env: NodeJS.ProcessEnv): ServeCredentials {
  const clientPem = env.PLUGIN_CLIENT_CERT;
  if (clientPem === undefined || clientPem.trim() === '') {
    return { credentials: ServerCredentials.createInsecure(), handshakeField: '' };
  }
  try {
    new X509Certificate(clientPem);
  } catch {
    throw new Error('PLUGIN_CLIENT_CERT is set but does not hold a PEM certificate');
  }
  const own = createSelfSignedCertificate();
  return {
    credentials: new ClientVerifyingServerCredentials(clientPem, own),
    handshakeField: own.der.toString('base64').replace(/=+$/, ''),
  };
}
