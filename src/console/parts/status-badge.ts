import { html } from '../html';

/** A status word, coloured by what it means (the word itself carries the meaning). */
export function StatusBadge({ status }: { status: string }) {
  return html`<span class=${`badge status-${status}`}>${status.replace('_', ' ')}</span>`;
}
