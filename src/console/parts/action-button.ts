import { useState } from 'preact/hooks';
import { html } from '../html';
import { ApiErrorView } from './api-error-view';

export interface ActionButtonProps {
  /** What the button says. */
  label: string;
  /** What it does, for a screen reader: the action and what it acts on ("Disable toolport.echo"). */
  name: string;
  run: () => Promise<unknown>;
  kind?: 'danger' | 'plain';
  disabled?: boolean;
}

/**
 * A button that runs one API action, says it is busy meanwhile, and shows a refusal beside itself.
 * Busy, it is aria-disabled and ignores presses rather than `disabled`: a disabled button drops
 * the keyboard's focus to the page's start, and the button (now saying the opposite action) should keep it.
 */
export function ActionButton({ label, name, run, kind = 'plain', disabled = false }: ActionButtonProps) {
  // What the button was doing when pressed: the live channel may turn "Disable" into "Enable"
  // before the request answers, and it should still say "Disable…" meanwhile.
  const [pressed, setPressed] = useState<string | null>(null);
  const busy = pressed !== null;
  const [error, setError] = useState<unknown>(null);
  const click = async () => {
    if (busy) return;
    setPressed(label);
    setError(null);
    try {
      await run();
    } catch (caught) {
      setError(caught);
    } finally {
      setPressed(null);
    }
  };
  return html`<span class="action">
    <button
      type="button"
      class=${kind}
      aria-label=${name}
      disabled=${disabled}
      aria-disabled=${busy ? 'true' : undefined}
      aria-busy=${busy ? 'true' : 'false'}
      onClick=${click}
    >
      ${busy ? `${pressed}…` : label}
    </button>
    <${ApiErrorView} error=${error} />
  </span>`;
}
