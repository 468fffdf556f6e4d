import { createHash } from 'node:crypto';

/** SHA-256 hex of a token: what is stored and compared, never the token itself. */
export function hashToken(token: string): string {
  return sha256Hex(token);
}

/** SHA-256 of the UTF-8 text, as lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
