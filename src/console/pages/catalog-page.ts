import type { CatalogTool, ToolAnnotations } from '../../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { DataTable } from '../parts/data-table';
import { JsonView } from '../parts/json-view';

/** The catalog agents see: every active plugin's tools with their surfaces, hints and schemas. */
export function CatalogPage({ state }: { state: ConsoleState }) {
  const catalog = state.catalog;
  return html`<section aria-labelledby="catalog-title">
    <h1 id="catalog-title" tabindex="-1">Catalog</h1>
    ${
      !catalog
        ? html`<p>Waiting for the catalog…</p>`
        : html`<p>Generation <code>${catalog.generation}</code>, revision ${catalog.revision}, ${catalog.tools.length} tools.</p>
            <${DataTable}
              caption="Tools in the catalog"
              columns=${['Tool', 'Plugin', 'Surfaces', 'Description and schemas']}
              rows=${catalog.tools}
              empty="No tool: no active plugin declares one."
              row=${(t: CatalogTool) =>
                html`<tr key=${t.exposed_name} aria-label=${`Tool ${t.exposed_name} of plugin ${t.plugin_id}`}>
                  <th scope="row"><code>${t.exposed_name}</code></th>
                  <td><a href=${`#/plugins/${encodeURIComponent(t.plugin_id)}`}>${t.plugin_id}</a> ${t.plugin_version}</td>
                  <td>${t.surfaces.join(', ')}</td>
                  <td>
                    ${t.description}
                    <div class="muted">${hints(t.annotations)}</div>
                    <${JsonView} summary=${`Input schema of ${t.exposed_name}`} value=${t.input_schema} />
                    ${t.output_schema && html`<${JsonView} summary=${`Output schema of ${t.exposed_name}`} value=${t.output_schema} />`}
                  </td>
                </tr>`}
            />`
    }
  </section>`;
}

const HINTS: Record<keyof ToolAnnotations, string> = {
  read_only_hint: 'read-only',
  destructive_hint: 'destructive',
  idempotent_hint: 'idempotent',
  open_world_hint: 'open world',
};

function hints(annotations: ToolAnnotations): string {
  return (Object.keys(HINTS) as Array<keyof ToolAnnotations>)
    .filter((key) => annotations[key])
    .map((key) => HINTS[key])
    .join(', ');
}
