import { useEffect, useState } from 'preact/hooks';
import type { PluginDetails, PluginScope } from '../../api';
import { callApi } from '../api';
import { html } from '../html';
import { draftOf, EVERY_WORKSPACE, scopeOfDraft, toggled, toolColumns, withoutRow, withRow, workspaceWords, type ScopeDraft } from '../scope-draft';
import { ApiErrorView } from './api-error-view';

/**
 * Where a plugin contributes tools (docs/catalog-and-sessions.md, "Scopes"): every workspace or
 * the ones listed, and per workspace (the `*` row: every one) the tools it turns off, by their
 * local names. Saved whole with PUT; a refusal lists each `{path, message}` the API names.
 */
export function ScopeEditor({ token, pluginId, version }: { token: string; pluginId: string; version: string }) {
  const [declared, setDeclared] = useState<string[] | null>(null);
  const [draft, setDraft] = useState<ScopeDraft | null>(null);
  const [adding, setAdding] = useState('');
  const [problem, setProblem] = useState('');
  const [error, setError] = useState<unknown>(null);
  const [saved, setSaved] = useState('');
  const [busy, setBusy] = useState(false);
  const path = `/api/v1/plugins/${encodeURIComponent(pluginId)}`;

  useEffect(() => {
    let current = true;
    // The installed version's own names (the catalog has none while the plugin is not active).
    Promise.all([callApi<PluginScope>(token, 'GET', `${path}/scope`), callApi<PluginDetails>(token, 'GET', `${path}/info`)]).then(
      ([scope, details]) => {
        if (!current) return;
        setDraft(draftOf(scope));
        setDeclared(details.agent_tools.map((t) => t.name));
      },
      (caught) => current && setError(caught),
    );
    return () => {
      current = false;
    };
  }, [token, pluginId, version]);

  if (!draft || !declared) return html`<p>${error ? html`<${ApiErrorView} error=${error} />` : 'Loading the scope…'}</p>`;
  const columns = toolColumns(declared, draft);
  const edit = (next: ScopeDraft) => {
    setDraft(next);
    setSaved('');
  };
  const addRow = () => {
    const next = withRow(draft, adding);
    if ('problem' in next) return setProblem(next.problem);
    setProblem('');
    setAdding('');
    edit(next);
  };
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setSaved('');
    try {
      const stored = await callApi<PluginScope>(token, 'PUT', `${path}/scope`, { json: scopeOfDraft(draft) });
      setDraft(draftOf(stored));
      setSaved('Saved: sessions see the new scope at once.');
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const listId = `scope-workspaces-${pluginId}`;
  const addId = `scope-add-${pluginId}`;

  return html`<form class="scope" aria-label=${`Scope of ${pluginId}`} onSubmit=${submit}>
    <fieldset>
      <legend>Workspaces it serves</legend>
      <label
        ><input
          type="radio"
          name=${`scope-all-${pluginId}`}
          checked=${draft.all}
          aria-label=${`All workspaces for ${pluginId}`}
          onChange=${() => edit({ ...draft, all: true })}
        />
        All workspaces</label
      >
      <label
        ><input
          type="radio"
          name=${`scope-all-${pluginId}`}
          checked=${!draft.all}
          aria-label=${`Only the workspaces listed for ${pluginId}`}
          onChange=${() => edit({ ...draft, all: false })}
        />
        Only these (comma-separated; none listed: no workspace)</label
      >
      <div class="field">
        <label for=${listId}>Workspaces of ${pluginId}</label>
        <input
          id=${listId}
          type="text"
          value=${draft.workspacesText}
          disabled=${draft.all}
          placeholder="ws-1, ws-2"
          autocomplete="off"
          onInput=${(e: Event) => edit({ ...draft, workspacesText: (e.target as HTMLInputElement).value })}
        />
      </div>
    </fieldset>

    <fieldset>
      <legend>Tools turned off</legend>
      ${
        columns.length === 0
          ? html`<p>It declares no tool.</p>`
          : html`<table class="scope-tools">
                <caption class="sr-only">
                  Tools of ${pluginId} turned off per workspace
                </caption>
                <thead>
                  <tr>
                    <th scope="col">Workspace</th>
                    ${columns.map((c) => html`<th scope="col"><code>${c.name}</code>${c.declared ? '' : html` <span class="muted">(not declared)</span>`}</th>`)}
                    <th scope="col"><span class="sr-only">Actions</span></th>
                  </tr>
                </thead>
                <tbody>
                  ${draft.rows.map(
                    (row) =>
                      html`<tr key=${row.workspace} aria-label=${`Tools turned off in ${workspaceWords(row.workspace)}`}>
                        <th scope="row">${row.workspace === EVERY_WORKSPACE ? html`<code>*</code> every workspace` : html`<code>${row.workspace}</code>`}</th>
                        ${columns.map(
                          (c) =>
                            html`<td>
                              <input
                                type="checkbox"
                                checked=${row.disabled.includes(c.name)}
                                aria-label=${`Disable ${c.name} in ${workspaceWords(row.workspace)}`}
                                onChange=${(e: Event) => edit(toggled(draft, row.workspace, c.name, (e.target as HTMLInputElement).checked))}
                              />
                            </td>`,
                        )}
                        <td>
                          ${
                            row.workspace !== EVERY_WORKSPACE &&
                            html`<button
                              type="button"
                              aria-label=${`Remove the row of ${row.workspace}`}
                              onClick=${() => edit(withoutRow(draft, row.workspace))}
                            >
                              Remove
                            </button>`
                          }
                        </td>
                      </tr>`,
                  )}
                </tbody>
              </table>
              <div class="form-actions">
                <label for=${addId}>Workspace</label>
                <input
                  id=${addId}
                  type="text"
                  value=${adding}
                  autocomplete="off"
                  aria-label=${`Workspace row to add for ${pluginId}`}
                  onInput=${(e: Event) => setAdding((e.target as HTMLInputElement).value)}
                  onKeyDown=${(e: KeyboardEvent) => {
                    if (e.key !== 'Enter') return;
                    e.preventDefault();
                    addRow();
                  }}
                />
                <button type="button" aria-label=${`Add a workspace row for ${pluginId}`} onClick=${addRow}>Add row</button>
                ${problem && html`<span role="alert" class="problem">${problem}</span>`}
              </div>`
      }
    </fieldset>

    <div class="form-actions">
      <button type="submit" aria-label=${`Save scope of ${pluginId}`} disabled=${busy} aria-busy=${busy ? 'true' : 'false'}>
        ${busy ? 'Saving…' : 'Save scope'}
      </button>
      ${saved && html`<span role="status" class="ok">${saved}</span>`}
    </div>
    <${ApiErrorView} error=${error} />
  </form>`;
}
