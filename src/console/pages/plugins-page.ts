import type { PluginRecord } from '../../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { installPackage } from '../plugin-actions';
import { DataTable } from '../parts/data-table';
import { LifecycleButtons } from '../parts/lifecycle-buttons';
import { PackageUpload } from '../parts/package-upload';
import { StatusBadge } from '../parts/status-badge';
import { TimeText } from '../parts/time-text';

/** Every plugin with its status, version, restarts and last error; install by upload; lifecycle buttons per row. */
export function PluginsPage({ state, token }: { state: ConsoleState; token: string }) {
  const plugins = [...state.plugins.values()];
  return html`<section aria-labelledby="plugins-title">
    <h1 id="plugins-title" tabindex="-1">Plugins</h1>
    <${PackageUpload} name="Install a plugin" button="Install" done="Installed." upload=${(file: File) => installPackage(token, file)} />
    <${DataTable}
      caption="Installed plugins"
      columns=${['Plugin', 'Version', 'Status', 'Restarts', 'Last error', 'Tools', 'Actions']}
      rows=${plugins}
      empty="No plugin installed."
      row=${(p: PluginRecord) =>
        html`<tr key=${p.id} aria-label=${`Plugin ${p.id}`}>
          <th scope="row">
            <a href=${`#/plugins/${encodeURIComponent(p.id)}`}>${p.id}</a>${p.display_name && html`<div class="muted">${p.display_name}</div>`}
          </th>
          <td>${p.version}</td>
          <td><${StatusBadge} status=${p.status} /></td>
          <td>${p.restart_count}</td>
          <td>
            ${p.last_error ? html`<span class="last-error">${p.last_error}</span> ${p.last_error_at && html`<${TimeText} iso=${p.last_error_at} />`}` : html`<span class="muted">none</span>`}
          </td>
          <td>${p.tools.length}</td>
          <td>
            <${LifecycleButtons} token=${token} plugin=${p} />
            <a href=${`#/plugins/${encodeURIComponent(p.id)}/log`} aria-label=${`Log of ${p.id}`}>Log</a>
          </td>
        </tr>`}
    />
  </section>`;
}
