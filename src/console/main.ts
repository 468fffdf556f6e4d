import { render } from 'preact';
import { useState } from 'preact/hooks';
import { forgetToken, storedToken, takeTokenFromFragment } from './admin-token';
import { ConsoleShell } from './console-shell';
import { html } from './html';
import { SignIn } from './sign-in';

function App() {
  // The admin token typed or given in the fragment, else the credential this tab kept (./admin-token.ts).
  const [token, setToken] = useState<string | null>(() => takeTokenFromFragment() ?? storedToken());
  const [notice, setNotice] = useState('');
  if (!token) {
    return html`<${SignIn}
      notice=${notice}
      signedIn=${(next: string) => {
        setNotice('');
        setToken(next);
      }}
    />`;
  }
  return html`<${ConsoleShell}
    token=${token}
    signOut=${(why: string) => {
      forgetToken();
      setNotice(why);
      setToken(null);
    }}
  />`;
}

render(html`<${App} />`, document.getElementById('app')!);
