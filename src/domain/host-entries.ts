import { utf8ByteLength } from './byte-length';
import { LIMITS } from './limits';

/** docs/plugin-protocol.md §13: the key of a state entry or a plugin secret. */
export const HOST_KEY_PATTERN = /^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$/;
const PREFIX_PATTERN = /^[A-Za-z0-9._:/-]{0,256}$/;
const PAGE_TOKEN_TAG = 'after:';

/** Null for a key §10 accepts, else why not (never echoing the key: it may carry data). */
export function hostKeyProblem(key: string): string | null {
  if (key === '') return 'the key is empty';
  if (key.length > LIMITS.hostKeyLength) return `the key is ${key.length} characters, more than ${LIMITS.hostKeyLength}`;
  if (!HOST_KEY_PATTERN.test(key)) return `the key must match ${HOST_KEY_PATTERN.source}`;
  return null;
}

/** Null for a state value §10 accepts: JSON text of at most 65536 UTF-8 bytes. */
export function stateValueProblem(valueJson: string): string | null {
  const bytes = utf8ByteLength(valueJson);
  if (bytes > LIMITS.stateValueBytes) return `the value is ${bytes} bytes, more than ${LIMITS.stateValueBytes}`;
  try {
    JSON.parse(valueJson);
  } catch {
    return 'the value is not JSON text';
  }
  return null;
}

/** Null for a plugin secret value §10 accepts: at most 16384 UTF-8 bytes. */
export function secretValueProblem(value: string): string | null {
  const bytes = utf8ByteLength(value);
  return bytes > LIMITS.secretValueBytes ? `the value is ${bytes} bytes, more than ${LIMITS.secretValueBytes}` : null;
}

/** One ListState page request, read: the keys to skip past, and how many to answer. */
export interface StatePageQuery {
  prefix: string;
  /** Answer keys strictly after this one (byte order); undefined for the first page. */
  after: string | undefined;
  limit: number;
}

/**
 * Reads a ListState request (§10): a limit of 0 means the default, one over 1000 reads as
 * 1000; the page token must be one a previous answer gave. Throws nothing: a problem is
 * returned as text for INVALID_ARGUMENT.
 */
export function readStatePageQuery(prefix: string, limit: number, pageToken: string): StatePageQuery | { problem: string } {
  if (!PREFIX_PATTERN.test(prefix)) return { problem: `the prefix must match ${PREFIX_PATTERN.source}` };
  const pageLimit = limit <= 0 || limit > LIMITS.statePageMax ? LIMITS.statePageMax : Math.floor(limit);
  if (pageToken === '') return { prefix, after: undefined, limit: pageLimit };
  const after = pageToken.startsWith(PAGE_TOKEN_TAG) ? pageToken.slice(PAGE_TOKEN_TAG.length) : '';
  if (hostKeyProblem(after) !== null) return { problem: 'the page token is not one a ListState answer gave' };
  return { prefix, after, limit: pageLimit };
}

/**
 * The next_page_token for a page: empty when `keys` holds the last matching key (`more` is
 * false), else a token naming the page's last key.
 */
export function nextStatePageToken(keys: string[], more: boolean): string {
  if (!more || keys.length === 0) return '';
  return `${PAGE_TOKEN_TAG}${keys[keys.length - 1]}`;
}
