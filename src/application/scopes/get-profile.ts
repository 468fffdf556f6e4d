import type { Profile } from '../../domain/scopes';
import type { PluginRecords } from '../ports/plugin-records';
import { findProfile } from './find-profile';

/** One profile (`default` always exists); NOT_FOUND for a name that names none. */
export class GetProfile {
  constructor(private readonly records: PluginRecords) {}

  async execute(name: string): Promise<Profile> {
    return findProfile(await this.records.transaction((tx) => tx.catalogPolicy()), name);
  }
}
