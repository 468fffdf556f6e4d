import { useState } from 'preact/hooks';
import { ApiError, callApi } from './api';
import { html } from './html';

/** The sign-in form: the admin token, checked by a sign-in (the token itself is never sent) before it is kept. */
export function SignIn({ signedIn, notice }: { signedIn: (token: string) => void; notice: string }) {
  const [token, setToken] = useState('');
  const [problem, setProblem] = useState('');
  const [busy, setBusy] = useState(false);
  const submit = async (event: Event) => {
    event.preventDefault();
    setBusy(true);
    setProblem('');
    try {
      await callApi(token.trim(), 'GET', '/api/v1/catalog');
      signedIn(token.trim());
    } catch (error) {
      setProblem(error instanceof ApiError && error.status === 401 ? 'The backend refused that token.' : `Could not sign in: ${(error as Error).message}`);
    } finally {
      setBusy(false);
    }
  };
  return html`<main class="sign-in">
    <h1>Toolport console</h1>
    <form aria-label="Sign in" onSubmit=${submit}>
      <p>Sign in with the backend's admin token: <code>TOOLPORT_ADMIN_TOKEN</code>, or the content of <code>admin.token</code> in its data dir.</p>
      ${notice && html`<p role="status" class="notice">${notice}</p>`}
      <label for="admin-token">Admin token</label>
      <input
        id="admin-token"
        type="password"
        autocomplete="current-password"
        required
        value=${token}
        onInput=${(e: Event) => setToken((e.target as HTMLInputElement).value)}
      />
      <button type="submit" disabled=${busy || token.trim() === ''}>${busy ? 'Signing in…' : 'Sign in'}</button>
      ${problem && html`<p role="alert" class="error">${problem}</p>`}
    </form>
  </main>`;
}
