import { render } from 'preact';
import { useState } from 'preact/hooks';
import { forgetToken, keepToken, storedToken, takeTokenFromFragment } from './admin-token';
import { ConsoleShell } from './console-shell';
import { html } from './html';
import { SignIn } from './sign-in';

function App() {
  const [token, setToken] = useState<string | null>(() => {
    const fromFragment = takeTokenFromFragment();
    if (fromFragment) keepToken(fromFragment);
    return fromFragment ?? storedToken();
  });
  const [notice, setNotice] = useState('');
  if (!token) {
    return html`<${SignIn}
      notice=${notice}
      signedIn=${(next: string) => {
        keepToken(next);
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
