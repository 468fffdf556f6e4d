import type { RawFrame, RawLink } from './raw-link';

/**
 * The next frame on `link` that `match` accepts, reading past the others (a backend's
 * `catalog.push` among answers, say); fails after `timeoutMs`, naming `what`.
 */
export async function frameMatching(link: RawLink, match: (frame: RawFrame) => boolean, timeoutMs: number, what: string): Promise<RawFrame> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => (timer = setTimeout(() => reject(new Error(`${what} not seen in ${timeoutMs} ms`)), timeoutMs)));
  const search = (async () => {
    for (;;) {
      const frame = await link.next();
      if (match(frame)) return frame;
    }
  })();
  try {
    return await Promise.race([search, timeout]);
  } finally {
    clearTimeout(timer);
  }
}
