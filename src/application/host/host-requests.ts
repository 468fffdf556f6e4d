import { instanceOwner } from '../../domain/host-entry-owner';
import { HostCallError } from '../../domain/errors';
import { hostCallDenial, type HostMethod } from '../../domain/host-capabilities';
import { hostKeyProblem, nextStatePageToken, readStatePageQuery, secretValueProblem, stateValueProblem } from '../../domain/host-entries';
import { LIMITS } from '../../domain/limits';
import type { HostProfile } from '../ports/host-access';
import type { Logger } from '../ports/logger';
import type { HostEntries, HostEntryWrite } from '../ports/host-entries';
import { SecretUnreadableError, type SecretBox } from '../ports/secret-box';
import { openConfiguration } from '../plugins/plugin-configuration';
import type { HostSessions } from './host-sessions';

export interface StateEntry {
  found: boolean;
  /** JSON text; '' when not found. */
  valueJson: string;
}

export interface StatePage {
  keys: string[];
  /** '' on the page holding the last key. */
  nextPageToken: string;
}

export interface SecretEntry {
  found: boolean;
  value: string;
}

/**
 * What a plugin process may ask of its host (docs/plugin-protocol.md §13), the inbound port the Host
 * service drives. Every call names its caller by token alone; the checks run in order:
 * token (HOST_TOKEN_INVALID), capability (CAPABILITY_NOT_GRANTED), key and value
 * (ENTRY_INVALID), then the store (KEY_LIMIT_REACHED at the key limit, NO_PLUGIN_RECORD for a
 * write while the plugin has no record — during its first install's start or its uninstall —
 * HOST_STOPPING while the backend stops). Failures are HostCallErrors whose messages never
 * hold a key or a value; nothing here logs either.
 */
export class HostRequests {
  constructor(
    private readonly sessions: HostSessions,
    private readonly store: HostEntries,
    private readonly box: SecretBox,
    private readonly logger: Logger,
  ) {}

  /**
   * The configuration this process was started with, secrets in clear, as JSON object text.
   * It comes with the process, not from the record, so a plugin reading it as it starts gets it
   * on a first install too, before any record exists.
   */
  getConfig(token: string): Promise<string> {
    return this.serve(token, 'GetConfig', async (profile) => JSON.stringify(openConfiguration(this.box, profile.pluginId, profile.config)));
  }

  getState(token: string, key: string): Promise<StateEntry> {
    return this.serve(token, 'GetState', async (profile) => {
      checked(hostKeyProblem(key));
      const valueJson = await this.store.getState(instanceOwner(profile.pluginId), key);
      return valueJson === undefined ? { found: false, valueJson: '' } : { found: true, valueJson };
    });
  }

  setState(token: string, key: string, valueJson: string): Promise<void> {
    return this.serve(token, 'SetState', async (profile) => {
      checked(hostKeyProblem(key) ?? stateValueProblem(valueJson));
      written(profile, 'state', await this.store.putState(instanceOwner(profile.pluginId), key, valueJson, LIMITS.hostKeysPerPlugin));
    });
  }

  deleteState(token: string, key: string): Promise<boolean> {
    return this.serve(token, 'DeleteState', async (profile) => {
      checked(hostKeyProblem(key));
      return this.store.deleteState(instanceOwner(profile.pluginId), key);
    });
  }

  listState(token: string, prefix: string, limit: number, pageToken: string): Promise<StatePage> {
    return this.serve(token, 'ListState', async (profile) => {
      const query = readStatePageQuery(prefix, limit, pageToken);
      if ('problem' in query) throw new HostCallError('ENTRY_INVALID', query.problem);
      // One key more than asked says whether this page holds the last key.
      const keys = await this.store.listStateKeys(instanceOwner(profile.pluginId), query.prefix, query.after, query.limit + 1);
      const page = keys.slice(0, query.limit);
      return { keys: page, nextPageToken: nextStatePageToken(page, keys.length > query.limit) };
    });
  }

  getSecret(token: string, key: string): Promise<SecretEntry> {
    return this.serve(token, 'GetSecret', async (profile) => {
      checked(hostKeyProblem(key));
      const sealed = await this.store.getSecret(instanceOwner(profile.pluginId), key);
      return sealed ? { found: true, value: this.box.open(sealed, secretContext(profile, key)) } : { found: false, value: '' };
    });
  }

  setSecret(token: string, key: string, value: string): Promise<void> {
    return this.serve(token, 'SetSecret', async (profile) => {
      checked(hostKeyProblem(key) ?? secretValueProblem(value));
      const sealed = this.box.seal(value, secretContext(profile, key));
      written(profile, 'secret', await this.store.putSecret(instanceOwner(profile.pluginId), key, sealed, LIMITS.hostKeysPerPlugin));
    });
  }

  deleteSecret(token: string, key: string): Promise<boolean> {
    return this.serve(token, 'DeleteSecret', async (profile) => {
      checked(hostKeyProblem(key));
      return this.store.deleteSecret(instanceOwner(profile.pluginId), key);
    });
  }

  /** Authenticates and authorises, runs `work`, and turns every other failure into a clean answer. */
  private async serve<T>(token: string, method: HostMethod, work: (profile: HostProfile) => Promise<T>): Promise<T> {
    const profile = this.sessions.find(token);
    if (!profile) throw new HostCallError('HOST_TOKEN_INVALID', 'the Host token is missing, wrong, or its plugin process has exited');
    const denial = hostCallDenial(method, profile.capabilities);
    if (denial !== null) throw new HostCallError('CAPABILITY_NOT_GRANTED', denial);
    try {
      return await work(profile);
    } catch (error) {
      if (error instanceof HostCallError) throw error;
      const fields = { plugin_id: profile.pluginId, method };
      if (error instanceof SecretUnreadableError) {
        this.logger.error({ ...fields, key_id: error.keyId }, 'a stored secret cannot be decrypted');
        throw new HostCallError('SECRET_UNREADABLE', "a stored secret of this plugin cannot be decrypted with the backend's key");
      }
      // A closed store: the backend is stopping. The plugin may retry with its next process.
      this.logger.warn({ ...fields, err: error instanceof Error ? error.message : String(error) }, 'host call failed');
      throw new HostCallError('HOST_STOPPING', 'the host cannot answer now (it is stopping); retry later');
    }
  }
}

function checked(problem: string | null): void {
  if (problem !== null) throw new HostCallError('ENTRY_INVALID', problem);
}

function written(profile: HostProfile, kind: 'state' | 'secret', outcome: HostEntryWrite): void {
  if (outcome === 'limit_reached') {
    throw new HostCallError('KEY_LIMIT_REACHED', `the plugin already holds ${LIMITS.hostKeysPerPlugin} ${kind} keys, the most it may; delete some first`);
  }
  if (outcome === 'no_plugin') throw gone(profile);
}

function gone(profile: HostProfile): HostCallError {
  return new HostCallError(
    'NO_PLUGIN_RECORD',
    `plugin ${profile.pluginId} has no record: it is being installed (state and secrets can be written once it is active) or uninstalled`,
  );
}

function secretContext(profile: HostProfile, key: string): string {
  return `secret:${profile.pluginId}:${key}`;
}
