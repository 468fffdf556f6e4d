import { readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import type { ProcessIdentity } from '../shared/process-identity';

/** One plugin process group the host started: its leader, what it spawned, its TMPDIR. */
export interface RecordedGroup {
  /** The leader, whose pid is also the group id. */
  leader: ProcessIdentity;
  /** Descendants seen so far (a `setsid` child leaves the group, so it is recorded by name). */
  descendants: ProcessIdentity[];
  tmpDir: string;
}

/**
 * The file (mode 0600, under the data dir) listing every plugin process group this backend
 * started and has not yet ended, so the next backend on the data dir can end what a killed
 * one left behind (docs/plugin-protocol.md §4). Rewritten whole on each change, through a temporary file and
 * a rename, so a crash mid-write never leaves half a record.
 */
export class ProcessGroupRecord {
  private readonly groups = new Map<number, RecordedGroup>();

  constructor(readonly path: string) {}

  /** What the file holds now; a missing or unreadable file holds nothing. */
  static read(path: string): RecordedGroup[] {
    try {
      const parsed: unknown = JSON.parse(readFileSync(path, 'utf8'));
      return Array.isArray(parsed) ? parsed.filter(isRecordedGroup) : [];
    } catch {
      return [];
    }
  }

  add(group: RecordedGroup): void {
    this.groups.set(group.leader.pid, group);
    this.write();
  }

  /** Replaces the descendants recorded for a group with the live ones its process knows. */
  setDescendants(leaderPid: number, known: ProcessIdentity[]): void {
    const group = this.groups.get(leaderPid);
    if (!group) return;
    group.descendants = known;
    this.write();
  }

  remove(leaderPid: number): void {
    if (this.groups.delete(leaderPid)) this.write();
  }

  private write(): void {
    if (this.groups.size === 0) {
      rmSync(this.path, { force: true });
      return;
    }
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, JSON.stringify([...this.groups.values()]), { mode: 0o600 });
    renameSync(temporary, this.path);
  }
}

function isIdentity(value: unknown): value is ProcessIdentity {
  const v = value as ProcessIdentity;
  return typeof v === 'object' && v !== null && Number.isInteger(v.pid) && v.pid > 0 && typeof v.startTime === 'number';
}

function isRecordedGroup(value: unknown): value is RecordedGroup {
  const v = value as RecordedGroup;
  return (
    typeof v === 'object' &&
    v !== null &&
    isIdentity(v.leader) &&
    Array.isArray(v.descendants) &&
    v.descendants.every(isIdentity) &&
    typeof v.tmpDir === 'string'
  );
}
