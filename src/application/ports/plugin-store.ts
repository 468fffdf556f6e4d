import type { HostEntries } from './host-entries';
import type { PluginRecords } from './plugin-records';
import type { SessionStore } from './session-store';

/**
 * What one store adapter implements over one database: the plugin records, the sessions and
 * the Host entries, three ports the composition binds to the same object. Use cases name the
 * one port they use, never this.
 */
export type PluginStore = PluginRecords & SessionStore & HostEntries;
