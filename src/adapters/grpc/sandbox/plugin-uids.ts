import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** The `--plugin-uids` range a root backend gives plugins their own user ids from. */
export interface UidRange {
  start: number;
  end: number;
}

/**
 * Each plugin id's own user id under a root backend, allocated from the range at its first
 * start and kept in a 0600 file of the data dir, so it stays the same across starts and
 * backends and is never given to another plugin (an uninstalled plugin's uid is not reused).
 */
export class PluginUids {
  private readonly byPlugin: Map<string, number>;

  constructor(
    private readonly file: string,
    private readonly range: UidRange,
  ) {
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
    while (taken.has(uid) && uid <= this.range.end) uid += 1;
    if (uid > this.range.end) throw new Error(`no plugin uid left in ${this.range.start}-${this.range.end} (--plugin-uids)`);
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
  const parsed = JSON.parse(text) as unknown;
  if (typeof parsed !== 'object' || parsed === null) throw new Error(`${file} is not a plugin uid table`);
  const kept: Record<string, number> = {};
  for (const [id, uid] of Object.entries(parsed)) if (Number.isInteger(uid)) kept[id] = uid as number;
  return kept;
}
