import { X509Certificate } from 'node:crypto';
import { APP_PROTOCOL_VERSION, CORE_PROTOCOL_VERSION } from '@toolport/plugin-sdk/protocol';

/** Where a plugin said it listens, from its go-plugin handshake line. */
export interface PluginEndpoint {
  network: 'tcp' | 'unix';
  address: string;
  /** The grpc-js target for that address. */
  target: string;
  /** The plugin's server certificate (DER) from the 6th field; absent means plaintext. */
  serverCertificate?: Buffer;
}

// One definition for both ends of the protocol: the SDK's.
export { APP_PROTOCOL_VERSION, CORE_PROTOCOL_VERSION };

/** go-plugin's client reads a 6th field as a certificate only above this length (older servers put short extras there). */
const CERTIFICATE_MIN_LENGTH = 51;
/** Go's base64.RawStdEncoding: the standard alphabet without `=` padding. */
const RAW_STD_BASE64 = /^[A-Za-z0-9+/]+$/;

export type HandshakeResult = { ok: true; endpoint: PluginEndpoint } | { ok: false; reason: string };

/**
 * Parses `CORE|APP|NETWORK|ADDRESS|PROTOCOL[|CERT[|…]]` (docs/plugin-protocol.md §4): 5 to 7 fields, core and
 * app version 1, protocol `grpc`; a 6th field longer than 50 characters is the plugin's
 * certificate, a shorter one is ignored, as go-plugin's own client does. A refusal carries a
 * reason an operator can act on; it never echoes more than the start of a foreign line.
 */
export function parseHandshake(line: string, now = new Date()): HandshakeResult {
  const fields = line.trim().split('|');
  const shown = JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
  if (fields.length < 5 || fields.length > 7) {
    return refuse(`the first stdout line is not a handshake (expected 5 to 7 '|'-separated fields, got ${shown})`);
  }
  const [core, app, network, address, protocol, certificateField = ''] = fields;
  if (core !== CORE_PROTOCOL_VERSION) {
    return refuse(`unsupported core protocol version ${JSON.stringify(core)} (expected ${CORE_PROTOCOL_VERSION})`);
  }
  if (app !== APP_PROTOCOL_VERSION) {
    return refuse(`unsupported plugin protocol version ${JSON.stringify(app)} (expected ${APP_PROTOCOL_VERSION})`);
  }
  if (protocol !== 'grpc') {
    return refuse(`unsupported protocol ${JSON.stringify(protocol)} (only grpc is supported)`);
  }
  const endpoint = network === 'tcp' ? tcpEndpoint(address) : network === 'unix' ? unixEndpoint(address) : null;
  if (!endpoint) return refuse(`unsupported network ${JSON.stringify(network)} (expected tcp or unix)`);
  if (!endpoint.ok || certificateField.length < CERTIFICATE_MIN_LENGTH) return endpoint;
  const certificate = parseCertificate(certificateField, now);
  if ('reason' in certificate) return refuse(certificate.reason);
  return { ok: true, endpoint: { ...endpoint.endpoint, serverCertificate: certificate.der } };
}

/** The 6th field as go-plugin writes it: the DER certificate in unpadded base64, naming localhost. */
function parseCertificate(field: string, now: Date): { der: Buffer } | { reason: string } {
  if (!RAW_STD_BASE64.test(field) || field.length % 4 === 1) {
    return { reason: "the server certificate in the 6th field is not unpadded standard base64 (Go's RawStdEncoding)" };
  }
  const der = Buffer.from(field, 'base64');
  let certificate: X509Certificate;
  try {
    certificate = new X509Certificate(der);
  } catch {
    return { reason: 'the server certificate in the 6th field is not a DER X.509 certificate' };
  }
  if (!certificate.checkHost('localhost')) {
    return { reason: 'the server certificate in the 6th field does not name localhost' };
  }
  if (now < new Date(certificate.validFrom) || now > new Date(certificate.validTo)) {
    return { reason: `the server certificate in the 6th field is not valid now (valid ${certificate.validFrom} to ${certificate.validTo})` };
  }
  return { der };
}

function tcpEndpoint(address: string): HandshakeResult {
  const match = /^(.+):(\d{1,5})$/.exec(address);
  const port = match ? Number(match[2]) : 0;
  if (!match || port < 1 || port > 65535) {
    return refuse(`bad tcp address ${JSON.stringify(address)} (expected host:port)`);
  }
  return { ok: true, endpoint: { network: 'tcp', address, target: address } };
}

function unixEndpoint(address: string): HandshakeResult {
  if (!address.startsWith('/')) {
    return refuse(`bad unix socket path ${JSON.stringify(address)} (expected an absolute path)`);
  }
  return { ok: true, endpoint: { network: 'unix', address, target: `unix://${address}` } };
}

function refuse(reason: string): HandshakeResult {
  return { ok: false, reason };
}
