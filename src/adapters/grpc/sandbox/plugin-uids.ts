import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** The `--plugin-uids` range a root backend gives plugins their own user ids from. */
export interface UidRange {
  start: number;
  end: number;
}

/** The highest uid a range may reach: 2^32 - 1 is the kernel's "no uid". */
const MAX_UID = 4_294_967_294;

/** The uids of the accounts in /etc/passwd: a plugin is never given a login user's uid. */
export function accountUids(passwd = '/etc/passwd'): Set<number> {
  let text: string;
  try {
    text = readFileSync(passwd, 'utf8');
  } catch {
    return new Set();
  }
  const uids = new Set<number>();
  for (const line of text.split('\n')) {
    const field = line.split(':')[2];
    if (field !== undefined && /^\d+$/.test(field)) uids.add(Number(field));
  }
  return uids;
}

/**
 * Each plugin id's own user id under a root backend (docs/operations.md §4),
 * allocated from the range at its first start and kept in a 0600 file of the data dir, so it
 * stays the same across starts, backends and a reinstall of the same id, and is never given to
 * another plugin (an uninstalled plugin's uid stays its own) nor to an account of the machine.
 */
export class PluginUids {
  private readonly byPlugin: Map<string, number>;

  constructor(
    private readonly file: string,
    private readonly range: UidRange,
    private readonly accounts: ReadonlySet<number> = accountUids(),
  ) {
    const { start, end } = range;
    if (!Number.isInteger(start) || !Number.isInteger(end) || start < 1 || start > end || end > MAX_UID) {
      throw new Error(`plugin uid range ${start}-${end} is not START-END with 1 <= START <= END <= ${MAX_UID} (--plugin-uids)`);
    }
    this.byPlugin = new Map(Object.entries(readKept(file)));
  }

  /** The uid of `pluginId`, if it has one. */
  allocated(pluginId: string): number | null {
    return this.byPlugin.get(pluginId) ?? null;
  }

  /** The uid of `pluginId`, allocating the next free one (and keeping it) the first time. Throws when the range is used up. */
  uidOf(pluginId: string): number {
    const known = this.byPlugin.get(pluginId);
    if (known !== undefined) return known;
    const taken = new Set(this.byPlugin.values());
    let uid = this.range.start;
    while (uid <= this.range.end && (taken.has(uid) || this.accounts.has(uid))) uid += 1;
    if (uid > this.range.end) {
      throw new Error(
        `no plugin uid left in ${this.range.start}-${this.range.end} (--plugin-uids): each plugin ever installed keeps its own; give a larger range`,
      );
    }
    this.byPlugin.set(pluginId, uid);
    const next = `${this.file}.next`;
    writeFileSync(next, `${JSON.stringify(Object.fromEntries(this.byPlugin), null, 2)}\n`, { mode: 0o600 });
    renameSync(next, this.file);
    return uid;
  }
}

function readKept(file: string): Record<string, number> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch {
    return {};
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new Error(`${file} is not a plugin uid table (not JSON); restore it from a backup, or remove it to give every plugin a new uid`);
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error(`${file} is not a plugin uid table (not a JSON object)`);
  const kept: Record<string, number> = {};
  for (const [id, uid] of Object.entries(parsed)) if (typeof uid === 'number' && Number.isInteger(uid)) kept[id] = uid;
  return kept;
}
