import { useState } from 'preact/hooks';
import { html } from '../html';
import { ApiErrorView } from './api-error-view';

export interface PackageUploadProps {
  /** The form's name and the button's words ("Install a plugin", "Upgrade toolport.echo"). */
  name: string;
  button: string;
  upload: (file: File) => Promise<unknown>;
  /** Said once an upload was taken. */
  done: string;
}

/** A package file picker and the button that sends it; the API's refusal is shown under it. */
export function PackageUpload({ name, button, upload, done }: PackageUploadProps) {
  const [file, setFile] = useState<File | null>(null);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [message, setMessage] = useState('');
  const inputId = `file-${name.replace(/\W+/g, '-')}`;
  const submit = async (event: Event) => {
    event.preventDefault();
    if (!file) return;
    setBusy(true);
    setError(null);
    setMessage('');
    try {
      await upload(file);
      setMessage(done);
    } catch (caught) {
      setError(caught);
    } finally {
      setBusy(false);
    }
  };
  return html`<form class="upload" aria-label=${name} onSubmit=${submit}>
    <label for=${inputId}>Package (.tgz)</label>
    <input
      id=${inputId}
      type="file"
      accept=".tgz,.tar.gz,application/gzip"
      onChange=${(e: Event) => setFile((e.target as HTMLInputElement).files?.[0] ?? null)}
    />
    <button type="submit" disabled=${!file || busy} aria-busy=${busy ? 'true' : 'false'}>${busy ? `${button}…` : button}</button>
    ${message && html`<span role="status" class="ok">${message}</span>`}
    <${ApiErrorView} error=${error} />
  </form>`;
}
