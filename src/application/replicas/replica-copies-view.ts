import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { ReplicaRoster } from '../ports/replica-roster';

/** One live replica's copy of a plugin, as the operator API shows it (docs/operations.md §10). */
export interface ReplicaCopyView {
  id: string;
  status: PluginStatus;
  pid: number | null;
}

/**
 * The `replicas` of each plugin: one entry per live replica, in the order they joined. A
 * replica that has not stored a copy yet shows `registered` for a desired-active plugin (it
 * is starting it), else the record's status.
 */
export class ReplicaCopiesView {
  constructor(private readonly roster: ReplicaRoster) {}

  async of(records: readonly PluginRecord[]): Promise<Map<string, ReplicaCopyView[]>> {
    const [members, copies] = await Promise.all([this.roster.live(), this.roster.copies()]);
    const byKey = new Map(copies.map((copy) => [`${copy.replicaId}\n${copy.pluginId}`, copy]));
    return new Map(
      records.map((record) => [
        record.id,
        members.map((member) => {
          const copy = byKey.get(`${member.id}\n${record.id}`);
          if (copy) return { id: member.id, status: copy.status, pid: copy.pid };
          return { id: member.id, status: record.status === 'active' ? 'registered' : record.status, pid: null };
        }),
      ]),
    );
  }
}
