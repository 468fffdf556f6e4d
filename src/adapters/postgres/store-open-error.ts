/**
 * The store could not be opened: the server is unreachable, refused the login, has no such
 * database, or holds a schema this build cannot use. Its message is one line meant for an
 * operator, naming the store without its password.
 */
export class StoreOpenError extends Error {
  readonly code = 'STORE_UNAVAILABLE';
  constructor(message: string) {
    super(message);
    this.name = 'StoreOpenError';
  }
}

/** The store URL as it may be shown: no password, no query but the socket folder. */
export function describeStoreUrl(url: string): string {
  try {
    const parsed = new URL(url);
    const user = parsed.username ? `${decodeURIComponent(parsed.username)}@` : '';
    const socket = parsed.searchParams.get('host');
    return `${parsed.protocol}//${user}${parsed.host}${parsed.pathname}${socket ? `?host=${socket}` : ''}`;
  } catch {
    return 'the given store URL';
  }
}

/**
 * What went wrong, in one line: a refused connection tried on several addresses says each.
 * Duck-typed, because a socket error can come from another realm than this module's Error.
 */
export function failureReason(error: unknown): string {
  const { errors, message, code } = (typeof error === 'object' && error !== null ? error : {}) as { errors?: unknown; message?: unknown; code?: unknown };
  if (Array.isArray(errors) && errors.length > 0) return [...new Set(errors.map(failureReason))].join('; ');
  const text = typeof message === 'string' ? message : String(error);
  return text.replace(/\s+/g, ' ').trim() || (typeof code === 'string' ? code : 'unknown error');
}
