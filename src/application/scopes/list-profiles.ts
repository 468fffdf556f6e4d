import type { Profile } from '../../domain/scopes';
import type { PluginRecords } from '../ports/plugin-records';

/** Every profile, `default` included, sorted by name (docs/catalog-and-sessions.md, "Scopes"). */
export class ListProfiles {
  constructor(private readonly records: PluginRecords) {}

  async execute(): Promise<Profile[]> {
    const policy = await this.records.transaction((tx) => tx.catalogPolicy());
    return [...policy.profiles.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }
}
