import { useState } from 'preact/hooks';
import type { PluginRecord } from '../../api';
import { html } from '../html';
import { pluginActions } from '../plugin-actions';
import { ActionButton } from './action-button';

/** Enable or disable, and uninstall behind a second, explicit confirmation. */
export function LifecycleButtons({ token, plugin }: { token: string; plugin: PluginRecord }) {
  const [confirming, setConfirming] = useState(false);
  const actions = pluginActions(token, plugin.id);
  const running = plugin.status !== 'disabled';
  return html`<span class="buttons">
    ${
      running
        ? html`<${ActionButton} label="Disable" name=${`Disable ${plugin.id}`} run=${actions.disable} />`
        : html`<${ActionButton} label="Enable" name=${`Enable ${plugin.id}`} run=${actions.enable} />`
    }
    ${
      confirming
        ? html`<${ActionButton}
              label="Confirm uninstall"
              name=${`Confirm: uninstall ${plugin.id} and delete its data`}
              kind="danger"
              run=${actions.uninstall}
            />
            <button type="button" aria-label=${`Keep ${plugin.id} installed`} onClick=${() => setConfirming(false)}>Keep</button>`
        : html`<button type="button" class="danger" aria-label=${`Uninstall ${plugin.id}`} onClick=${() => setConfirming(true)}>Uninstall</button>`
    }
  </span>`;
}
