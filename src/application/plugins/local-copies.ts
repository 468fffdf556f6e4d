import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { RunningPlugins } from './running-plugins';

/** A copy as its replica stores it. */
export interface CopyState {
  status: PluginStatus;
  pid: number | null;
}

/**
 * What this replica's own copies were last made to follow (CONTRACT §12): for each plugin, the
 * record (version and update time) its copy was started or stopped for. A record another
 * replica changed since then is one this replica has yet to carry out.
 */
export class LocalCopies {
  private readonly followed = new Map<string, string>();

  constructor(private readonly running: RunningPlugins) {}

  /** This replica just committed `record` (its copy is as the record says): the copy to store. */
  saved(record: PluginRecord): CopyState {
    this.follow(record);
    return this.copyOf(record.id, record.status);
  }

  /** The copy's state once its status is `status`: the pid of its process while active. */
  copyOf(pluginId: string, status: PluginStatus): CopyState {
    return { status, pid: status === 'active' ? (this.running.instanceOf(pluginId)?.pid() ?? null) : null };
  }

  follow(record: PluginRecord): void {
    this.followed.set(record.id, stamp(record));
  }

  forget(pluginId: string): void {
    this.followed.delete(pluginId);
  }

  /** Whether this copy already follows `record` as it is stored. */
  follows(record: PluginRecord): boolean {
    return this.followed.get(record.id) === stamp(record);
  }

  /** The plugins this replica has a copy of (or had, until forget()). */
  pluginIds(): string[] {
    return [...this.followed.keys()];
  }
}

function stamp(record: PluginRecord): string {
  return `${record.version}@${record.updated_at}`;
}
