import type { PluginRecord, PluginStatus } from '../../domain/plugin-record';
import type { RunningPlugins } from '../plugins/running-plugins';

/** A copy as its replica stores it. */
export interface CopyState {
  status: PluginStatus;
  pid: number | null;
}

interface Followed {
  /** The record's version and update time the copy was last made to follow. */
  stamp: string;
  /** What the running process was started with: version, package and sealed configuration. */
  runs: string | null;
  /** The package digest the running process was unpacked from. */
  sha256: string | null;
  status: PluginStatus;
}

/**
 * What this replica's own copies were last made to follow (docs/operations.md §10): for each plugin, the
 * record (version and update time) its copy was started or stopped for, what its process runs
 * and the copy's status. A record another replica changed since then is one this replica has
 * yet to carry out.
 */
export class LocalCopies {
  private readonly followed = new Map<string, Followed>();

  constructor(private readonly running: RunningPlugins) {}

  /**
   * This replica just committed `record` (its copy is as the record says), with `config` (the
   * sealed configuration's data) stored for it: the copy to store.
   */
  saved(record: PluginRecord, config: string | null): CopyState {
    this.follow(record, record.status === 'active' ? runs(record, config) : null);
    return this.copyOf(record.id, record.status);
  }

  /** The copy's state once its status is `status`: the pid of its process while active. */
  copyOf(pluginId: string, status: PluginStatus): CopyState {
    const followed = this.followed.get(pluginId);
    if (followed) followed.status = status;
    return { status, pid: status === 'active' ? (this.running.instanceOf(pluginId)?.pid() ?? null) : null };
  }

  /** The copy now follows `record`; `config` is what its process runs with (null: no process). */
  follow(record: PluginRecord, running: string | null): void {
    const status = this.followed.get(record.id)?.status ?? record.status;
    this.followed.set(record.id, { stamp: stamp(record), runs: running, sha256: running === null ? null : record.package_sha256, status });
  }

  forget(pluginId: string): void {
    this.followed.delete(pluginId);
  }

  /** Whether this copy already follows `record` as it is stored. */
  follows(record: PluginRecord): boolean {
    return this.followed.get(record.id)?.stamp === stamp(record);
  }

  /** Whether the copy is active and runs the record's version with configuration `config`. */
  serves(record: PluginRecord, config: string | null): boolean {
    const followed = this.followed.get(record.id);
    return followed?.status === 'active' && followed.runs === runs(record, config) && this.running.instanceOf(record.id) !== undefined;
  }

  /** Whether the copy's process was unpacked from the package `sha256` (a same-version reinstall changes it). */
  ranPackage(pluginId: string, sha256: string): boolean {
    return this.followed.get(pluginId)?.sha256 === sha256;
  }

  statusOf(pluginId: string): PluginStatus | undefined {
    return this.followed.get(pluginId)?.status;
  }

  /** The plugins this replica has a copy of (or had, until forget()). */
  pluginIds(): string[] {
    return [...this.followed.keys()];
  }
}

function stamp(record: PluginRecord): string {
  return `${record.version}@${record.updated_at}`;
}

/** What a process of the record runs with. */
export function runs(record: PluginRecord, config: string | null): string {
  return `${record.version}\n${record.package_sha256}\n${config ?? ''}`;
}
