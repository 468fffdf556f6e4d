/** Where a plugin said it listens, from its go-plugin handshake line. */
export interface PluginEndpoint {
  network: 'tcp' | 'unix';
  address: string;
  /** The grpc-js target for that address. */
  target: string;
}

export const CORE_PROTOCOL_VERSION = '1';
export const APP_PROTOCOL_VERSION = '1';

export type HandshakeResult = { ok: true; endpoint: PluginEndpoint } | { ok: false; reason: string };

/**
 * Parses `CORE|APP|NETWORK|ADDRESS|PROTOCOL[|CERT[|…]]` (CONTRACT §8): 5 to 7 fields, core and
 * app version 1, protocol `grpc`, no certificate (no mutual TLS yet). A refusal carries a
 * reason an operator can act on; it never echoes more than the start of a foreign line.
 */
export function parseHandshake(line: string): HandshakeResult {
  const fields = line.replace(/\r$/, '').split('|');
  const shown = JSON.stringify(line.length > 120 ? `${line.slice(0, 120)}…` : line);
  if (fields.length < 5 || fields.length > 7) {
    return refuse(`the first stdout line is not a handshake (expected 5 to 7 '|'-separated fields, got ${shown})`);
  }
  const [core, app, network, address, protocol, certificate = ''] = fields;
  if (core !== CORE_PROTOCOL_VERSION) {
    return refuse(`unsupported core protocol version ${JSON.stringify(core)} (expected ${CORE_PROTOCOL_VERSION})`);
  }
  if (app !== APP_PROTOCOL_VERSION) {
    return refuse(`unsupported plugin protocol version ${JSON.stringify(app)} (expected ${APP_PROTOCOL_VERSION})`);
  }
  if (protocol !== 'grpc') {
    return refuse(`unsupported protocol ${JSON.stringify(protocol)} (only grpc is supported)`);
  }
  if (certificate.trim() !== '') {
    return refuse('the handshake carries a server certificate, but mutual TLS is not supported yet');
  }
  if (network === 'tcp') return tcpEndpoint(address);
  if (network === 'unix') return unixEndpoint(address);
  return refuse(`unsupported network ${JSON.stringify(network)} (expected tcp or unix)`);
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
