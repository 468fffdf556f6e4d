import type { PluginRecord } from '../../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { pluginActions } from '../plugin-actions';
import { ConfigForm } from '../parts/config-form';
import { JsonView } from '../parts/json-view';
import { LifecycleButtons } from '../parts/lifecycle-buttons';
import { PackageUpload } from '../parts/package-upload';
import { ScopeEditor } from '../parts/scope-editor';
import { StatusBadge } from '../parts/status-badge';
import { TimeText } from '../parts/time-text';
import { ToolDriftView } from '../parts/tool-drift-view';

/** One plugin: its record, lifecycle and upgrade, its tools with their schemas, its scope, its configuration. */
export function PluginPage({ state, token, pluginId }: { state: ConsoleState; token: string; pluginId: string }) {
  const plugin = state.plugins.get(pluginId);
  if (!plugin) {
    return html`<section aria-labelledby="plugin-title">
      <h1 id="plugin-title" tabindex="-1">${pluginId}</h1>
      <p>No plugin <code>${pluginId}</code> is installed. <a href="#/plugins">All plugins</a></p>
    </section>`;
  }
  const tools = (state.catalog?.tools ?? []).filter((t) => t.plugin_id === plugin.id);
  return html`<section aria-labelledby="plugin-title">
    <h1 id="plugin-title" tabindex="-1">${plugin.display_name ?? plugin.id}</h1>
    ${plugin.description && html`<p>${plugin.description}</p>`}
    <dl class="facts">
      <dt>Id</dt>
      <dd><code>${plugin.id}</code></dd>
      <dt>Version</dt>
      <dd>${plugin.version}</dd>
      <dt>Status</dt>
      <dd><${StatusBadge} status=${plugin.status} /></dd>
      <dt>Process</dt>
      <dd>${plugin.pid === null ? 'none running' : `pid ${plugin.pid}, ${plugin.tls ? 'mutual TLS' : 'plaintext'}`}</dd>
      <dt>Restarts</dt>
      <dd>${plugin.restart_count}</dd>
      <dt>Last error</dt>
      <dd>${plugin.last_error ? html`${plugin.last_error} ${plugin.last_error_at && html`<${TimeText} iso=${plugin.last_error_at} />`}` : 'none'}</dd>
      <dt>May reach</dt>
      <dd><${MayReach} plugin=${plugin} /></dd>
      <dt>Installed</dt>
      <dd><${TimeText} iso=${plugin.installed_at} /></dd>
      <dt>Changed</dt>
      <dd><${TimeText} iso=${plugin.updated_at} /></dd>
      ${
        plugin.server !== undefined &&
        html`<dt>MCP server</dt>
          <dd>${plugin.server === null ? 'not started yet' : `${plugin.server.name} ${plugin.server.version}`}</dd>`
      }
    </dl>
    ${
      plugin.warnings.length > 0 &&
      html`<ul class="warnings" aria-label=${`Warnings of ${plugin.id}`}>
        ${plugin.warnings.map((w, index) => html`<li key=${index}><code>${w.path}</code>: ${w.message}</li>`)}
      </ul>`
    }
    <p><${LifecycleButtons} token=${token} plugin=${plugin} /> <a href=${`#/plugins/${encodeURIComponent(plugin.id)}/log`}>Log of ${plugin.id}</a></p>
    <${PackageUpload}
      name=${`Upgrade ${plugin.id}`}
      button=${`Upgrade ${plugin.id}`}
      done="Upgraded."
      upload=${(file: File) => pluginActions(token, plugin.id).upgrade(file)}
    />

    <h2>Tools</h2>
    <${ToolDriftView} token=${token} plugin=${plugin} />
    ${
      tools.length > 0
        ? html`<ul class="tools">
            ${tools.map(
              (t) =>
                html`<li key=${t.exposed_name} aria-label=${`Tool ${t.exposed_name}`}>
                  <code>${t.exposed_name}</code> — ${t.description} <span class="muted">(${t.surfaces.join(', ')})</span>
                  <${JsonView} summary=${`Input schema of ${t.exposed_name}`} value=${t.input_schema} />
                  ${t.output_schema && html`<${JsonView} summary=${`Output schema of ${t.exposed_name}`} value=${t.output_schema} />`}
                </li>`,
            )}
          </ul>`
        : html`<p>
            ${plugin.tools.length === 0 ? 'It declares no tool.' : html`Its tools (${plugin.tools.join(', ')}) are in the catalog, with their schemas, while it is active.`}
          </p>`
    }

    <h2>Scope</h2>
    <${ScopeEditor} token=${token} pluginId=${plugin.id} version=${plugin.version} />

    <h2>Configuration</h2>
    <${ConfigForm} token=${token} pluginId=${plugin.id} version=${plugin.version} />
  </section>`;
}

/**
 * What the plugin may reach and how it runs (docs/operations.md §9): its sandbox and
 * uid, the network, and each path and environment name granted, as `plugin info` says it.
 */
function MayReach({ plugin }: { plugin: PluginRecord }) {
  const { read_paths: reads, write_paths: writes, env } = plugin.permissions;
  const as = plugin.uid === null ? "as the backend's user" : `as uid ${plugin.uid}`;
  const list = (items: string[]) => (items.length === 0 ? 'none' : items.join(', '));
  return html`<ul class="reach" aria-label=${`What ${plugin.id} may reach`}>
    <li>
      ${
        plugin.sandbox.mode === 'none'
          ? `Sandbox: none (unsandboxed), ${as}: whatever that user can`
          : `Sandbox: ${plugin.sandbox.mode}, ${as}: its installed version (read-only), its data dir and TMPDIR, and what is below`
      }
    </li>
    <li>Network: ${plugin.sandbox.network ? "the host's network" : 'none (a loopback of its own)'}</li>
    <li>Read: ${list(reads)}</li>
    <li>Write: ${list(writes)}</li>
    <li>Env: ${list(env)}</li>
  </ul>`;
}
