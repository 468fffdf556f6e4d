/**
 * Why a Host API call failed (docs/plugin-protocol.md, the Host API):
 * - `UNAUTHENTICATED`: the token is wrong or its process ended;
 * - `PERMISSION_DENIED`: the manifest lacks `capabilities.state` / `secrets`, or a request names
 *   a call that is no longer in flight (a handler's `config()`, `workspace` or `task` used by
 *   work that outlived its call);
 * - `INVALID_ARGUMENT`: a key or value breaks the rules;
 * - `RESOURCE_EXHAUSTED`: 10000 keys in that scope;
 * - `UNAVAILABLE`: the host is stopping or the plugin is being uninstalled; also when the
 *   process was not started by Toolport;
 * - `INTERNAL`: anything else.
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
 * A key-value store kept by the host across restarts and upgrades, values as JSON. Needs
 * `capabilities.state: true`. Keys match `^[A-Za-z0-9][A-Za-z0-9._:/-]{0,255}$`; at most 10000
 * keys per store.
 */
export interface StateStore {
  /** The value stored under `key` (parsed JSON), or undefined. */
  get<T = unknown>(key: string): Promise<T | undefined>;
  /** Stores `value` as JSON (at most 65536 bytes). */
  set(key: string, value: unknown): Promise<void>;
  /** Removes `key`; resolves whether it existed. */
  delete(key: string): Promise<boolean>;
  /** One page of keys starting with `prefix` (limit: default and at most 1000). */
  list(options?: { prefix?: string; limit?: number; pageToken?: string }): Promise<StatePage>;
  /** Every key starting with `prefix`, page after page, in byte order. */
  keys(prefix?: string): AsyncIterable<string>;
}

/**
 * Secrets the plugin obtains itself (say, a refreshed OAuth token), encrypted at rest by the
 * host. Needs `capabilities.secrets: true`. Keys as for state.
 */
export interface SecretStore {
  /** The secret stored under `key`, or undefined. */
  get(key: string): Promise<string | undefined>;
  /** Stores `value` (at most 16384 bytes). */
  set(key: string, value: string): Promise<void>;
  /** Removes `key`; resolves whether it existed. */
  delete(key: string): Promise<boolean>;
}

/** The state and secrets of one scope. */
export interface ScopedStore {
  state: StateStore;
  secrets: SecretStore;
}

/**
 * The plugin's host with instance access, as `pluginHost()` gives it to start-up code and to
 * work outside any call. Every call rejects with a HostError on failure.
 */
export interface PluginHost {
  /**
   * The instance configuration the operator set (`toolport plugin config set`), secrets in
   * clear, `{}` when none was set. Read once per process: an instance configuration change
   * starts a new process.
   */
  config<T = Record<string, unknown>>(): Promise<T>;
  /** The plugin's own state, shared by every call and every workspace. */
  state: StateStore;
  /** The plugin's own secrets, shared by every call and every workspace. */
  secrets: SecretStore;
  /** Closes the connection, for every host object of the process (the SDK does so when the plugin shuts down). */
  close(): void;
}

/**
 * The host as a tool handler gets it (`context.host`): the instance's state and secrets, plus
 * what belongs to the call's workspace and task. The host binds those from the call itself
 * (never from anything the plugin says), and only while the call is in flight: once the
 * handler has answered, or the call was cancelled or timed out, `config()`, `workspace` and
 * `task` reject with `PERMISSION_DENIED`, while `state` and `secrets` keep working for work
 * the handler left running.
 */
export interface CallHost extends PluginHost {
  /**
   * The configuration merged for the call's workspace: the instance configuration with that
   * workspace's overrides in place of its top-level keys, secrets in clear. Read once per call
   * (the first read's answer is kept for the rest of it), since an override changes without a
   * restart.
   */
  config<T = Record<string, unknown>>(): Promise<T>;
  /** Entries of the call's workspace: every call in that workspace, whatever its task, sees them. */
  workspace: ScopedStore;
  /** Entries of the call's task (within its workspace). */
  task: ScopedStore;
}
