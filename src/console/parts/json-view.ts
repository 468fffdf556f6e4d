import { html } from '../html';

/** A JSON value (a schema, say) folded under a summary that names it. */
export function JsonView({ summary, value }: { summary: string; value: unknown }) {
  return html`<details>
    <summary>${summary}</summary>
    <pre class="json">${JSON.stringify(value, null, 2)}</pre>
  </details>`;
}
