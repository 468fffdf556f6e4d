import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { installPackage } from '../plugin-actions';
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
    ${
      plugins.length === 0
        ? html`<p>No plugin installed.</p>`
        : html`<table>
            <caption class="sr-only">
              Installed plugins
            </caption>
            <thead>
              <tr>
                <th scope="col">Plugin</th>
                <th scope="col">Version</th>
                <th scope="col">Status</th>
                <th scope="col">Restarts</th>
                <th scope="col">Last error</th>
                <th scope="col">Tools</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${plugins.map(
                (p) =>
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
                  </tr>`,
              )}
            </tbody>
          </table>`
    }
  </section>`;
}
