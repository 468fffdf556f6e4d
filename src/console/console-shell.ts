import { useEffect, useRef, useState } from 'preact/hooks';
import type { LiveEvent } from '../api';
import { applyEvent, EMPTY_STATE, type ConsoleState } from './console-state';
import { html } from './html';
import { openLiveChannel, type ChannelStatus } from './live-channel';
import { ApprovalsPage } from './pages/approvals-page';
import { CallsPage } from './pages/calls-page';
import { CatalogPage } from './pages/catalog-page';
import { LogPage } from './pages/log-page';
import { OverviewPage } from './pages/overview-page';
import { PluginPage } from './pages/plugin-page';
import { PluginsPage } from './pages/plugins-page';
import { ProfilesPage } from './pages/profiles-page';
import { SessionsPage } from './pages/sessions-page';
import { useRoute, type Route } from './route';

const PAGES: Array<{ page: Route['page']; href: string; label: string }> = [
  { page: 'overview', href: '#/overview', label: 'Overview' },
  { page: 'plugins', href: '#/plugins', label: 'Plugins' },
  { page: 'catalog', href: '#/catalog', label: 'Catalog' },
  { page: 'profiles', href: '#/profiles', label: 'Profiles' },
  { page: 'sessions', href: '#/sessions', label: 'Sessions' },
  { page: 'calls', href: '#/calls', label: 'Calls' },
  { page: 'approvals', href: '#/approvals', label: 'Approvals' },
];

/** The signed-in console: navigation, the live channel's state, and the page the address names. */
export function ConsoleShell({ token, signOut }: { token: string; signOut: (notice: string) => void }) {
  const [state, setState] = useState<ConsoleState>(EMPTY_STATE);
  const [status, setStatus] = useState<ChannelStatus>('connecting');
  const route = useRoute();
  const main = useRef<HTMLElement>(null);

  useEffect(() => {
    // Events are applied in batches: a burst of calls re-renders once, not once per call.
    let queue: LiveEvent[] = [];
    let timer = 0;
    const flush = () => {
      timer = 0;
      const batch = queue;
      queue = [];
      setState((held) => batch.reduce(applyEvent, held));
    };
    return openLiveChannel(token, {
      onEvent(event) {
        queue.push(event);
        timer ||= window.setTimeout(flush, 50);
      },
      onStatus: setStatus,
      onUnauthorized: () => signOut('The backend refused the token: sign in again.'),
    });
  }, [token]);

  useEffect(() => {
    // A screen reader hears the new page's heading; the keyboard starts from it.
    main.current?.querySelector<HTMLElement>('h1')?.focus();
  }, [route.page, 'pluginId' in route ? route.pluginId : '']);

  const current = route.page === 'plugin' || route.page === 'log' ? 'plugins' : route.page;
  return html`<div class="shell">
    <header>
      <span class="brand">Toolport</span>
      <nav aria-label="Console pages">${PAGES.map((p) => html`<a href=${p.href} aria-current=${p.page === current ? 'page' : undefined}>${p.label}</a>`)}</nav>
      <span role="status" class=${`channel channel-${status}`}>${status === 'live' ? 'Live' : status === 'connecting' ? 'Connecting…' : 'Reconnecting…'}</span>
      <button type="button" aria-label="Sign out of the console" onClick=${() => signOut('Signed out.')}>Sign out</button>
    </header>
    <main ref=${main}>${page(route, state, token)}</main>
  </div>`;
}

function page(route: Route, state: ConsoleState, token: string) {
  switch (route.page) {
    case 'plugins':
      return html`<${PluginsPage} state=${state} token=${token} />`;
    case 'plugin':
      return html`<${PluginPage} state=${state} token=${token} pluginId=${route.pluginId} />`;
    case 'log':
      return html`<${LogPage} key=${route.pluginId} state=${state} token=${token} pluginId=${route.pluginId} />`;
    case 'catalog':
      return html`<${CatalogPage} state=${state} />`;
    case 'profiles':
      return html`<${ProfilesPage} state=${state} token=${token} />`;
    case 'approvals':
      return html`<${ApprovalsPage} state=${state} token=${token} />`;
    case 'sessions':
      return html`<${SessionsPage} state=${state} token=${token} />`;
    case 'calls':
      return html`<${CallsPage} state=${state} />`;
    default:
      return html`<${OverviewPage} state=${state} />`;
  }
}
