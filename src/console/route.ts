import { useEffect, useState } from 'preact/hooks';

export type Route =
  | { page: 'overview' }
  | { page: 'plugins' }
  | { page: 'plugin'; pluginId: string }
  | { page: 'log'; pluginId: string }
  | { page: 'catalog' }
  | { page: 'profiles' }
  | { page: 'sessions' }
  | { page: 'calls' }
  | { page: 'approvals' };

/** The page a `#/…` address names; the overview for anything else. */
export function parseRoute(hash: string): Route {
  const parts = hash.replace(/^#\/?/, '').split('/').map(decodeURIComponent);
  switch (parts[0]) {
    case 'plugins':
      if (parts[1] && parts[2] === 'log') return { page: 'log', pluginId: parts[1] };
      if (parts[1]) return { page: 'plugin', pluginId: parts[1] };
      return { page: 'plugins' };
    case 'catalog':
    case 'profiles':
    case 'sessions':
    case 'calls':
    case 'approvals':
      return { page: parts[0] };
    default:
      return { page: 'overview' };
  }
}

/** The current route, following the address bar's fragment. */
export function useRoute(): Route {
  const [route, setRoute] = useState(() => parseRoute(window.location.hash));
  useEffect(() => {
    const follow = () => setRoute(parseRoute(window.location.hash));
    window.addEventListener('hashchange', follow);
    return () => window.removeEventListener('hashchange', follow);
  }, []);
  return route;
}
