/**
 * Why a Host API call failed (CONTRACT §10): `UNAUTHENTICATED` (the token is wrong or its
 * process ended), `PERMISSION_DENIED` (the manifest lacks `capabilities.state` / `secrets`),
 * `INVALID_ARGUMENT` (a key or value breaks the rules), `RESOURCE_EXHAUSTED` (10000 keys),
 * `UNAVAILABLE` (the host is stopping or the plugin is being uninstalled; also when the
 * process was not started by Toolport), `INTERNAL` (anything else).
 */
export type HostErrorCode = 'UNAUTHENTICATED' | 'PERMISSION_DENIED' | 'INVALID_ARGUMENT' | 'RESOURCE_EXHAUSTED' | 'UNAVAILABLE' | 'INTERNAL';

/** One ListState page. */
export interface StatePage {
  /** In byte order. */
  keys: string[];
  /** '' on the page holding the last key; else pass it as `pageToken` for the next page. */
  nextPageToken: string;
}

/**
 * The plugin's host, as a tool handler (or the plugin's start-up code) reaches it. Keys match
 * `^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$`; a failed call rejects with a HostError.
 */
export interface PluginHost {
  /**
   * The configuration the operator set (`toolport plugin config set`), secrets in clear, read
   * once per process: a configuration change starts a new process. `{}` when none was set.
   */
  config<T = Record<string, unknown>>(): Promise<T>;
  /** The plugin's key-value store, kept across restarts and upgrades. Needs `capabilities.state: true`. */
  state: {
    /** The value stored under `key` (parsed JSON), or undefined. */
    get<T = unknown>(key: string): Promise<T | undefined>;
    /** Stores `value` as JSON (at most 65536 bytes); at most 10000 keys a plugin. */
    set(key: string, value: unknown): Promise<void>;
    /** Removes `key`; resolves whether it existed. */
    delete(key: string): Promise<boolean>;
    /** One page of keys starting with `prefix` (limit: default and at most 1000). */
    list(options?: { prefix?: string; limit?: number; pageToken?: string }): Promise<StatePage>;
    /** Every key starting with `prefix`, page after page, in byte order. */
    keys(prefix?: string): AsyncIterable<string>;
  };
  /** Secrets the plugin obtains itself (say, a refreshed OAuth token), encrypted by the host. Needs `capabilities.secrets: true`. */
  secrets: {
    get(key: string): Promise<string | undefined>;
    /** At most 16384 bytes. */
    set(key: string, value: string): Promise<void>;
    delete(key: string): Promise<boolean>;
  };
  /** Closes the connection (the SDK does so when the plugin shuts down). */
  close(): void;
}
