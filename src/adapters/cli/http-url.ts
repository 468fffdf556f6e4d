/** True when `raw` parses as an `http:` or `https:` URL, the only kind a backend answers on. */
export function isHttpUrl(raw: string): boolean {
  try {
    const { protocol } = new URL(raw);
    return protocol === 'http:' || protocol === 'https:';
  } catch {
    return false;
  }
}
