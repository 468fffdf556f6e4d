/**
 * A secret as it is stored: the ciphertext and the id of the key that sealed it, so the key
 * can be rotated later (a store holds values sealed by several keys at once).
 */
export interface SealedValue {
  /** Names the key without revealing it (a digest of it). */
  keyId: string;
  /** Opaque text: nonce, authentication tag and ciphertext. */
  data: string;
}

/** A sealed value that cannot be opened: sealed by another key, or changed since it was sealed. */
export class SecretUnreadableError extends Error {
  constructor(
    readonly keyId: string,
    reason: string,
  ) {
    super(`a stored secret cannot be decrypted (key id ${keyId}): ${reason}`);
    this.name = 'SecretUnreadableError';
  }
}

/**
 * Authenticated encryption of the secrets the backend keeps (docs/plugin-protocol.md §13: configuration
 * secrets and plugin secrets, encrypted at rest). `context` names what the value belongs to
 * (`config:<plugin id>`, `secret:<plugin id>:<key>`) and is authenticated with it, so a
 * value copied to another plugin's row does not open.
 */
export abstract class SecretBox {
  /** Encrypts `plaintext` with the current key; a fresh nonce each time. */
  abstract seal(plaintext: string, context: string): SealedValue;

  /** Decrypts; throws SecretUnreadableError for an unknown key id, a changed value or another context. */
  abstract open(value: SealedValue, context: string): string;
}
