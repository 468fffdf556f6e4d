const KEY = 'toolport.console-credential';
/** What the tab keeps, once signed in: `credential:<credential>`, never the admin token (docs/operations.md §9). */
export const KEPT_PREFIX = 'credential:';
const FRAGMENT = /^#token=([^&]+)/;

/**
 * `/console/#token=<admin token>` signs in directly: the fragment never reaches the server.
 * The token is taken out of the address bar and its history entry at once, and kept in the
 * page's memory only. What the tab keeps across a reload (sessionStorage) is the short-lived
 * credential of its last sign-in, which only the backend process that issued it accepts: a page
 * another local user serves on the port of a stopped backend, loaded by a reload, reads nothing
 * it can use.
 */
export function takeTokenFromFragment(): string | null {
  const match = FRAGMENT.exec(window.location.hash);
  if (!match) return null;
  const token = decodeURIComponent(match[1]);
  history.replaceState(null, '', `${window.location.pathname}#/overview`);
  return token;
}

/** The kept credential as the key the console signs its requests with (`credential:…`), or null. */
export function storedToken(): string | null {
  const kept = sessionStorage.getItem(KEY);
  return kept?.startsWith(KEPT_PREFIX) ? kept : null;
}

/** Keeps the credential of a sign-in for a reload of this tab. */
export function keepCredential(credential: string): void {
  sessionStorage.setItem(KEY, KEPT_PREFIX + credential);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
