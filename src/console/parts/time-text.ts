import { html } from '../html';

/** A time as the operator reads it (local, to the second; the date too when not today), the exact ISO time on hover. */
export function TimeText({ iso }: { iso: string | null | undefined }) {
  if (!iso) return html`<span class="muted">—</span>`;
  const date = new Date(iso);
  const today = new Date().toDateString() === date.toDateString();
  const text = today ? date.toLocaleTimeString() : date.toLocaleString();
  return html`<time datetime=${iso} title=${iso}>${text}</time>`;
}
