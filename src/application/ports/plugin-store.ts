import type { ApprovalRequests } from './approval-requests';
import type { HostEntries } from './host-entries';
import type { PluginRecords } from './plugin-records';
import type { SessionStore } from './session-store';

/**
 * What one store adapter implements over one database: the plugin records, the sessions, the
 * Host entries and the approval requests, four ports the composition binds to the same object. Use cases name the
 * one port they use, never this.
 */
export type PluginStore = PluginRecords & SessionStore & HostEntries & ApprovalRequests;
