import type { ServiceIdentifier } from 'inversify';
import type { InstalledPackages } from '../application/ports/installed-packages';
import type { PackageStaging } from '../application/ports/package-staging';
import type { PluginStore } from '../application/ports/plugin-store';
import type { Settings } from '../application/settings';

/** The backend's settings, as the use cases that take them are given them. */
export const BACKEND_SETTINGS: ServiceIdentifier<Settings> = Symbol('Settings');
/** The store adapter behind PluginRecords, SessionStore and HostEntries. */
export const STORE: ServiceIdentifier<PluginStore> = Symbol('PluginStore');
/** The package adapter behind PackageStaging and InstalledPackages. */
export const PACKAGES: ServiceIdentifier<PackageStaging & InstalledPackages> = Symbol('Packages');
