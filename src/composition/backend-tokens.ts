import type { ServiceIdentifier } from 'inversify';
import type { PluginStore } from '../application/ports/plugin-store';
import type { Settings } from '../application/settings';

/** The backend's settings, as the use cases that take them are given them. */
export const BACKEND_SETTINGS: ServiceIdentifier<Settings> = Symbol('Settings');
/** The store adapter behind PluginRecords, SessionStore and HostEntries. */
export const STORE: ServiceIdentifier<PluginStore> = Symbol('PluginStore');
