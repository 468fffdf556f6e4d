const KEY = 'toolport.admin-token';
const FRAGMENT = /^#token=([^&]+)/;

/**
 * `/console/#token=<admin token>` signs in directly: the fragment never reaches the server.
 * The token is kept for this tab only (sessionStorage) and taken out of the address bar and
 * its history entry at once.
 */
export function takeTokenFromFragment(): string | null {
  const match = FRAGMENT.exec(window.location.hash);
  if (!match) return null;
  const token = decodeURIComponent(match[1]);
  history.replaceState(null, '', `${window.location.pathname}#/overview`);
  return token;
}

export function storedToken(): string | null {
  return sessionStorage.getItem(KEY);
}

export function keepToken(token: string): void {
  sessionStorage.setItem(KEY, token);
}

export function forgetToken(): void {
  sessionStorage.removeItem(KEY);
}
