import { generateKeyPairSync, randomBytes, sign } from 'node:crypto';
import { bitString, booleanTrue, element, explicit, objectIdentifier, octetString, sequence, set, time, unsignedInteger, utf8String } from './der';

/** A certificate and its private key, made for one plugin start and never written to disk. */
export interface SelfSignedCertificate {
  certPem: string;
  keyPem: string;
  /** The certificate itself (what go-plugin's handshake carries, base64-encoded). */
  der: Buffer;
}

/** How far back validity starts, for clocks of two processes that read time a moment apart. */
const BACKDATE_MS = 30_000;
const VALID_FOR_MS = 10 * 365 * 24 * 3600 * 1000;
const HOST = 'localhost';

const ECDSA_WITH_SHA256 = sequence(objectIdentifier('1.2.840.10045.4.3.2'));
const SERVER_AUTH = '1.3.6.1.5.5.7.3.1';
const CLIENT_AUTH = '1.3.6.1.5.5.7.3.2';
/** keyUsage digitalSignature (bit 0) and keyCertSign (bit 5): 1000 0100, 2 unused bits. */
const KEY_USAGE_BITS = bitString(Buffer.from([0x84]), 2);

function extension(oid: string, value: Buffer, critical = false): Buffer {
  return sequence(objectIdentifier(oid), ...(critical ? [booleanTrue()] : []), octetString(value));
}

/**
 * Makes the kind of certificate go-plugin's AutoMTLS makes on both sides: an ECDSA P-256 key,
 * self-signed, naming `localhost`, usable for serverAuth and clientAuth, its own CA (so a peer
 * can trust exactly it), valid from 30 s ago for 10 years.
 *
 * Why by hand: Node's crypto makes keys and signatures but has no API that creates an X.509
 * certificate. The SDK bundles into every plugin, so this small writer for one fixed
 * template is preferred over a certificate library; tests check the result with Node's
 * X509Certificate, openssl and Go's crypto/x509 (through go-plugin).
 */
export function createSelfSignedCertificate(now = new Date()): SelfSignedCertificate {
  const { publicKey, privateKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const name = sequence(set(sequence(objectIdentifier('2.5.4.10'), utf8String('Toolport'))), set(sequence(objectIdentifier('2.5.4.3'), utf8String(HOST))));
  const serial = randomBytes(16);
  serial[0] = (serial[0] & 0x7f) | 0x01;
  const tbs = sequence(
    explicit(0, unsignedInteger(Buffer.from([2]))),
    unsignedInteger(serial),
    ECDSA_WITH_SHA256,
    name,
    sequence(time(new Date(now.getTime() - BACKDATE_MS)), time(new Date(now.getTime() + VALID_FOR_MS))),
    name,
    publicKey.export({ type: 'spki', format: 'der' }),
    explicit(
      3,
      sequence(
        extension('2.5.29.19', sequence(booleanTrue()), true),
        extension('2.5.29.15', KEY_USAGE_BITS, true),
        extension('2.5.29.37', sequence(objectIdentifier(SERVER_AUTH), objectIdentifier(CLIENT_AUTH))),
        extension('2.5.29.17', sequence(element(0x82, Buffer.from(HOST, 'ascii')))),
      ),
    ),
  );
  const signature = sign('sha256', tbs, { key: privateKey, dsaEncoding: 'der' });
  const der = sequence(tbs, ECDSA_WITH_SHA256, bitString(signature));
  return { der, certPem: certificatePem(der), keyPem: privateKey.export({ type: 'pkcs8', format: 'pem' }).toString() };
}

/** PEM text of a DER certificate: base64 in 64-character lines between the markers. */
export function certificatePem(der: Buffer): string {
  const lines = der.toString('base64').match(/.{1,64}/g) ?? [];
  return `-----BEGIN CERTIFICATE-----\n${lines.join('\n')}\n-----END CERTIFICATE-----\n`;
}
