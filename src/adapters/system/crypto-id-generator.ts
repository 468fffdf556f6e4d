import { randomBytes, randomUUID } from 'node:crypto';
import { IdGenerator } from '../../application/ports/id-generator';

/** Ids and secrets from node:crypto's CSPRNG. */
export class CryptoIdGenerator extends IdGenerator {
  newId(): string {
    return randomUUID();
  }

  /** 32 random bytes (256 bits) as base64url: URL-safe and header-safe. */
  newToken(): string {
    return randomBytes(32).toString('base64url');
  }

  randomHex(n: number): string {
    return randomBytes(Math.ceil(n / 2))
      .toString('hex')
      .slice(0, n);
  }
}
