import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto';
import { SecretBox, SecretUnreadableError, type SealedValue } from '../../application/ports/secret-box';

const NONCE_BYTES = 12;
const TAG_BYTES = 16;
const FORMAT = 'v1';

/** The id stored beside each sealed value: a digest of the key, so the key itself never is. */
export function secretKeyId(key: Buffer): string {
  return createHash('sha256').update('toolport secret key id\0').update(key).digest('hex').slice(0, 16);
}

/**
 * AES-256-GCM with Node's crypto (docs/plugin-protocol.md §13): a fresh 96-bit nonce per seal, the value's
 * context as additional authenticated data. Seals with `key`; opens values sealed by it or
 * by one of `olderKeys`, which is what a later key rotation needs.
 */
export class AesGcmSecretBox extends SecretBox {
  private readonly keys = new Map<string, Buffer>();
  private readonly currentId: string;

  constructor(key: Buffer, olderKeys: Buffer[] = []) {
    super();
    for (const candidate of [key, ...olderKeys]) {
      if (candidate.length !== 32) throw new Error('an AES-256 key is 32 bytes');
      this.keys.set(secretKeyId(candidate), candidate);
    }
    this.currentId = secretKeyId(key);
  }

  get keyId(): string {
    return this.currentId;
  }

  seal(plaintext: string, context: string): SealedValue {
    const nonce = randomBytes(NONCE_BYTES);
    const cipher = createCipheriv('aes-256-gcm', this.keys.get(this.currentId)!, nonce);
    cipher.setAAD(Buffer.from(context, 'utf8'));
    const body = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()]);
    const sealed = Buffer.concat([nonce, cipher.getAuthTag(), body]).toString('base64');
    return { keyId: this.currentId, data: `${FORMAT}.${sealed}` };
  }

  open(value: SealedValue, context: string): string {
    const key = this.keys.get(value.keyId);
    if (!key) throw new SecretUnreadableError(value.keyId, 'it was sealed with a key this backend does not have (TOOLPORT_SECRET_KEY or secret.key changed)');
    if (!value.data.startsWith(`${FORMAT}.`)) throw new SecretUnreadableError(value.keyId, 'unknown format');
    const raw = Buffer.from(value.data.slice(FORMAT.length + 1), 'base64');
    if (raw.length < NONCE_BYTES + TAG_BYTES) throw new SecretUnreadableError(value.keyId, 'it is truncated');
    try {
      const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE_BYTES));
      decipher.setAAD(Buffer.from(context, 'utf8'));
      decipher.setAuthTag(raw.subarray(NONCE_BYTES, NONCE_BYTES + TAG_BYTES));
      return Buffer.concat([decipher.update(raw.subarray(NONCE_BYTES + TAG_BYTES)), decipher.final()]).toString('utf8');
    } catch {
      throw new SecretUnreadableError(value.keyId, 'it was changed, or belongs to something else');
    }
  }
}
