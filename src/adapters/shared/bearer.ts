import { timingSafeEqual } from 'node:crypto';

/** The token of an `Authorization: Bearer <token>` header, or '' when there is none. */
export function bearerToken(header: string | undefined): string {
  return header?.startsWith('Bearer ') ? header.slice('Bearer '.length).trim() : '';
}

/** Compares in constant time so the answer's timing says nothing about the token. */
function tokenMatches(presented: string, expected: string): boolean {
  const a = Buffer.from(presented);
  const b = Buffer.from(expected);
  return expected.length > 0 && a.length === b.length && timingSafeEqual(a, b);
}

/** Whether an `Authorization` header carries exactly `expected` as its bearer token. */
export function bearerMatches(header: string | undefined, expected: string): boolean {
  return tokenMatches(bearerToken(header), expected);
}
