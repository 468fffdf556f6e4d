/**
 * C0 controls other than tab and line feed, DEL, and the C1 controls (U+0080–U+009F): what a
 * terminal may act on rather than print (colours, cursor moves, title changes, a CR that
 * overwrites a line). docs/plugin-protocol.md §2 refuses them in a manifest's text fields;
 * docs/cli.md escapes them in text a package or a plugin wrote.
 */
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;

/** True when `text` holds a control character a terminal could act on. */
export function hasControlCharacters(text: string): boolean {
  CONTROL.lastIndex = 0;
  return CONTROL.test(text);
}

/**
 * `text` with each such control character written as a `\u00XX` escape, the form JSON uses,
 * so it reads the same in human output and leaves JSON output valid.
 */
export function escapeControlCharacters(text: string): string {
  return text.replace(CONTROL, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/** The violation a manifest text field with one gets (docs/plugin-protocol.md §2). */
export const CONTROL_CHARACTER_PROBLEM = 'must not contain control characters (only tab and line feed are allowed)';
