/** How long a command runs silently before it shows that it is still working. */
const QUIET_MS = 2000;
const TICK_MS = 1000;

/**
 * Runs `work`, and if it takes longer than about 2 s shows `<label>… Ns` on a terminal, updated
 * each second and erased when the work ends, so a slow plugin start does not look like a hang.
 * Written only when `write` goes to a terminal; nothing otherwise (logs and pipes stay clean).
 */
export async function withProgress<T>(terminal: boolean, write: (text: string) => void, label: string, work: () => Promise<T>): Promise<T> {
  if (!terminal) return work();
  const started = Date.now();
  let shown = false;
  const show = (): void => {
    shown = true;
    write(`\r\x1b[K${label}… ${Math.round((Date.now() - started) / 1000)}s`);
  };
  let ticker: NodeJS.Timeout | undefined;
  const quiet = setTimeout(() => {
    show();
    ticker = setInterval(show, TICK_MS);
  }, QUIET_MS);
  try {
    return await work();
  } finally {
    clearTimeout(quiet);
    clearInterval(ticker);
    if (shown) write('\r\x1b[K');
  }
}
