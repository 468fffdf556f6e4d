/**
 * Run as another user: tries each `list:<folder>` (readdir) or `read:<file>` (the first bytes)
 * it is given and prints one JSON line per try, `{"target", "ok", "code", "uid"}`, plus the
 * first 16 bytes read when a read succeeds, so a test can tell a real read from a refusal.
 */
import { closeSync, openSync, readdirSync, readSync } from 'node:fs';

const uid = process.getuid?.() ?? -1;
for (const target of process.argv.slice(2)) {
  const [how, ...rest] = target.split(':');
  const path = rest.join(':');
  try {
    if (how === 'list') {
      console.log(JSON.stringify({ target, ok: true, entries: readdirSync(path).length, uid }));
    } else {
      const fd = openSync(path, 'r');
      const head = Buffer.alloc(16);
      const length = readSync(fd, head, 0, head.length, 0);
      closeSync(fd);
      console.log(JSON.stringify({ target, ok: true, head: head.subarray(0, length).toString('latin1'), uid }));
    }
  } catch (error) {
    console.log(JSON.stringify({ target, ok: false, code: (error as NodeJS.ErrnoException).code, uid }));
  }
}
