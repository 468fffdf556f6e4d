import type { PluginRecord } from '../../api';
import { html } from '../html';
import { pluginActions } from '../plugin-actions';
import { ActionButton } from './action-button';
import { TimeText } from './time-text';

/**
 * An MCP server plugin's drift (docs/lifecycle.md §14): what the server's last list would add,
 * remove and change, by local name, with the Accept button that pins it; a line saying there is
 * none otherwise. Nothing for another plugin.
 */
export function ToolDriftView({ token, plugin }: { token: string; plugin: PluginRecord }) {
  if (plugin.tool_drift === undefined) return null;
  const drift = plugin.tool_drift;
  if (drift === null) return html`<p>Tool drift: none. The server's tools match the pinned ones.</p>`;
  const kinds = (['added', 'removed', 'changed'] as const).filter((kind) => drift[kind].length > 0);
  return html`<div class="drift" role="region" aria-label=${`Tool drift of ${plugin.id}`}>
    <p>
      <strong>Tool drift</strong> since <${TimeText} iso=${drift.detected_at} />: the server's tools differ from the pinned ones. Agents keep the pinned tools
      until you accept.
    </p>
    <dl class="facts">
      ${kinds.map(
        (kind) =>
          html`<dt key=${`${kind}-name`}>${kind[0].toUpperCase() + kind.slice(1)}</dt>
            <dd key=${kind}>${drift[kind].map((name, index) => html`${index > 0 && ', '}<code key=${name}>${name}</code>`)}</dd>`,
      )}
    </dl>
    <${ActionButton} label="Accept" name=${`Accept the tool drift of ${plugin.id}`} run=${pluginActions(token, plugin.id).acceptTools} />
  </div>`;
}
