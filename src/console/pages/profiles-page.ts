import { useEffect, useState } from 'preact/hooks';
import type { Profile } from '../../api';
import { callApi } from '../api';
import type { ConsoleState } from '../console-state';
import { html } from '../html';
import { ActionButton } from '../parts/action-button';
import { ApiErrorView } from '../parts/api-error-view';
import { patternLines } from '../scope-draft';

const PROFILES = '/api/v1/profiles';
const profilePath = (name: string) => `${PROFILES}/${encodeURIComponent(name)}`;

/**
 * The profiles (docs/catalog-and-sessions.md, "Scopes"): each with its include and exclude
 * patterns, one per line, edited and saved in place or deleted; a form makes a new one. A
 * profile change raises the catalog revision, so the list is read again whenever the live
 * channel brings a new one (another operator's change shows too); a row being edited keeps
 * what was typed unless that very profile changed.
 */
export function ProfilesPage({ state, token }: { state: ConsoleState; token: string }) {
  const [profiles, setProfiles] = useState<Profile[] | null>(null);
  const [error, setError] = useState<unknown>(null);
  const [asked, setAsked] = useState(0);
  const revision = state.catalog ? `${state.catalog.generation}/${state.catalog.revision}` : '';
  const reload = () => setAsked((n) => n + 1);

  useEffect(() => {
    let current = true;
    callApi<Profile[]>(token, 'GET', PROFILES).then(
      (list) => {
        if (!current) return;
        setProfiles(list);
        setError(null);
      },
      (caught) => current && setError(caught),
    );
    return () => {
      current = false;
    };
  }, [token, revision, asked]);

  return html`<section aria-labelledby="profiles-title">
    <h1 id="profiles-title" tabindex="-1">Profiles</h1>
    <p>
      A session's profile narrows its tools: a tool is in it when an include pattern matches its exposed name or its plugin id and no exclude pattern does
      (<code>*</code> stands for any run of characters). <code>default</code> includes everything and cannot be deleted.
    </p>
    <${ApiErrorView} error=${error} />
    ${
      profiles === null
        ? !error && html`<p>Loading the profiles…</p>`
        : html`<table class="profiles">
            <caption class="sr-only">
              Profiles
            </caption>
            <thead>
              <tr>
                <th scope="col">Profile</th>
                <th scope="col">Include (one pattern per line)</th>
                <th scope="col">Exclude (one pattern per line)</th>
                <th scope="col">Actions</th>
              </tr>
            </thead>
            <tbody>
              ${profiles.map((p) => html`<${ProfileRow} key=${p.name} token=${token} profile=${p} changed=${reload} />`)}
            </tbody>
          </table>`
    }
    <h2>New profile</h2>
    <${NewProfile} token=${token} created=${reload} />
  </section>`;
}

function ProfileRow({ token, profile, changed }: { token: string; profile: Profile; changed: () => void }) {
  const [include, setInclude] = useState(profile.include.join('\n'));
  const [exclude, setExclude] = useState(profile.exclude.join('\n'));
  const [saved, setSaved] = useState('');
  const stored = JSON.stringify(profile);
  useEffect(() => {
    // The profile as stored now (saved here, sorted, or changed by another operator).
    setInclude(profile.include.join('\n'));
    setExclude(profile.exclude.join('\n'));
  }, [stored]);
  const save = async () => {
    setSaved('');
    await callApi<Profile>(token, 'PUT', profilePath(profile.name), { json: { include: patternLines(include), exclude: patternLines(exclude) } });
    setSaved('Saved.');
    changed();
  };
  const remove = async () => {
    await callApi(token, 'DELETE', profilePath(profile.name));
    changed();
  };
  const field = (what: 'Include' | 'Exclude', value: string, set: (v: string) => void) =>
    html`<textarea
      rows=${Math.max(2, value.split('\n').length)}
      aria-label=${`${what} patterns of ${profile.name}`}
      spellcheck="false"
      value=${value}
      onInput=${(e: Event) => {
        set((e.target as HTMLTextAreaElement).value);
        setSaved('');
      }}
    />`;
  return html`<tr aria-label=${`Profile ${profile.name}`}>
    <th scope="row"><code>${profile.name}</code></th>
    <td>${field('Include', include, setInclude)}</td>
    <td>${field('Exclude', exclude, setExclude)}</td>
    <td>
      <span class="buttons">
        <${ActionButton} label="Save" name=${`Save profile ${profile.name}`} run=${save} />
        <${ActionButton} label="Delete" name=${`Delete profile ${profile.name}`} kind="danger" run=${remove} />
      </span>
      ${saved && html`<span role="status" class="ok">${saved}</span>`}
    </td>
  </tr>`;
}

function NewProfile({ token, created }: { token: string; created: () => void }) {
  const [name, setName] = useState('');
  const [include, setInclude] = useState('');
  const [exclude, setExclude] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState('');
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setError(null);
    setDone('');
    try {
      const stored = await callApi<Profile>(token, 'PUT', profilePath(name.trim()), {
        json: { include: patternLines(include), exclude: patternLines(exclude) },
      });
      setDone(`Saved profile ${stored.name}.`);
      setName('');
      setInclude('');
      setExclude('');
      created();
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  const text = (set: (v: string) => void) => (e: Event) => set((e.target as HTMLInputElement).value);
  return html`<form class="config" aria-label="New profile" onSubmit=${submit}>
    <div class="field">
      <label for="profile-new-name">Profile name</label>
      <input id="profile-new-name" type="text" value=${name} autocomplete="off" aria-describedby="profile-new-name-help" onInput=${text(setName)} />
      <small id="profile-new-name-help"
        >Lower-case letters, digits, <code>.</code>, <code>_</code> and <code>-</code>; saving a name that exists replaces it.</small
      >
    </div>
    <div class="field">
      <label for="profile-new-include">Include patterns of the new profile</label>
      <textarea id="profile-new-include" rows="3" spellcheck="false" placeholder="kandev_toolport_*" value=${include} onInput=${text(setInclude)} />
    </div>
    <div class="field">
      <label for="profile-new-exclude">Exclude patterns of the new profile</label>
      <textarea id="profile-new-exclude" rows="2" spellcheck="false" value=${exclude} onInput=${text(setExclude)} />
    </div>
    <div class="form-actions">
      <button type="submit" disabled=${busy || name.trim() === ''} aria-busy=${busy ? 'true' : 'false'}>${busy ? 'Creating…' : 'Create profile'}</button>
      ${done && html`<span role="status" class="ok">${done}</span>`}
    </div>
    <${ApiErrorView} error=${error} />
  </form>`;
}
