import { HostCallError } from '../../domain/errors';
import { hostCallDenial, type HostMethod } from '../../domain/host-capabilities';
import { hostKeyProblem, nextStatePageToken, readStatePageQuery, secretValueProblem, stateValueProblem } from '../../domain/host-entries';
import { instanceOwner, secretSealContext, taskOwner, workspaceOwner, type EntryOwner, type EntryScope } from '../../domain/host-entry-owner';
import { LIMITS } from '../../domain/limits';
import type { HostCallBinding, HostProfile } from '../ports/host-access';
import type { Logger } from '../ports/logger';
import type { HostEntries, HostEntryWrite } from '../ports/host-entries';
import type { PluginRecords } from '../ports/plugin-records';
import { SecretUnreadableError, type SecretBox } from '../ports/secret-box';
import { mergedConfiguration, openConfiguration, openWorkspaceConfiguration } from '../plugins/plugin-configuration';
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
 * Whose entries a state or secret request asks for (docs/plugin-protocol.md, "Host API scopes"):
 * a scope, or `unrecognised` for a wire value the host does not know, and the invocation id the
 * request carries ('' for none).
 */
export interface HostReach {
  scope: EntryScope | 'unrecognised';
  invocationId: string;
}

/** The plugin's own entries, as a request without scope or invocation id asks (each method's default). */
export const INSTANCE_REACH: HostReach = Object.freeze({ scope: 'instance' as const, invocationId: '' });

/** One authorised request: for whom, the call it names (if any), and the entries it reaches. */
interface Authorised {
  profile: HostProfile;
  call: HostCallBinding | undefined;
  owner: EntryOwner;
}

/**
 * What a plugin process may ask of its host (docs/plugin-protocol.md §13), the inbound port the Host
 * service drives. Every call names its caller by token alone; the checks run in order:
 * token (HOST_TOKEN_INVALID), capability (CAPABILITY_NOT_GRANTED), scope (SCOPE_UNKNOWN), the
 * invocation id — one that is not a call in flight to this very process is
 * INVOCATION_NOT_IN_FLIGHT whatever the scope, a WORKSPACE or TASK request without one
 * INVOCATION_REQUIRED — then key and value (ENTRY_INVALID), then the store (KEY_LIMIT_REACHED at
 * the key limit of that scope, NO_PLUGIN_RECORD for a write while the plugin has no record —
 * during its first install's start or its uninstall — HOST_STOPPING while the backend stops).
 * A scoped request reaches the workspace and task of the call it names, never ids the plugin
 * sends. Failures are HostCallErrors whose messages never hold a key or a value; nothing here
 * logs either.
 */
export class HostRequests {
  constructor(
    private readonly sessions: HostSessions,
    private readonly store: HostEntries,
    private readonly overrides: Pick<PluginRecords, 'getWorkspaceConfig'>,
    private readonly box: SecretBox,
    private readonly logger: Logger,
  ) {}

  /**
   * The configuration this process was started with, secrets in clear, as JSON object text;
   * naming a call in flight, that configuration merged with the overrides of the call's
   * workspace as they are stored now. The instance part comes with the process, not from the
   * record, so a plugin reading it as it starts gets it on a first install too.
   */
  getConfig(token: string, invocationId = ''): Promise<string> {
    return this.serve(token, 'GetConfig', { scope: 'instance', invocationId }, async ({ profile, call }) => {
      const instance = openConfiguration(this.box, profile.pluginId, profile.config);
      if (!call) return JSON.stringify(instance);
      const sealed = await this.overrides.getWorkspaceConfig(profile.pluginId, call.workspaceId);
      return JSON.stringify(mergedConfiguration(instance, openWorkspaceConfiguration(this.box, profile.pluginId, call.workspaceId, sealed)));
    });
  }

  getState(token: string, key: string, reach = INSTANCE_REACH): Promise<StateEntry> {
    return this.serve(token, 'GetState', reach, async ({ owner }) => {
      checked(hostKeyProblem(key));
      const valueJson = await this.store.getState(owner, key);
      return valueJson === undefined ? { found: false, valueJson: '' } : { found: true, valueJson };
    });
  }

  setState(token: string, key: string, valueJson: string, reach = INSTANCE_REACH): Promise<void> {
    return this.serve(token, 'SetState', reach, async ({ profile, owner }) => {
      checked(hostKeyProblem(key) ?? stateValueProblem(valueJson));
      written(profile, owner, 'state', await this.store.putState(owner, key, valueJson, LIMITS.hostKeysPerPlugin));
    });
  }

  deleteState(token: string, key: string, reach = INSTANCE_REACH): Promise<boolean> {
    return this.serve(token, 'DeleteState', reach, async ({ owner }) => {
      checked(hostKeyProblem(key));
      return this.store.deleteState(owner, key);
    });
  }

  listState(token: string, prefix: string, limit: number, pageToken: string, reach = INSTANCE_REACH): Promise<StatePage> {
    return this.serve(token, 'ListState', reach, async ({ owner }) => {
      const query = readStatePageQuery(prefix, limit, pageToken);
      if ('problem' in query) throw new HostCallError('ENTRY_INVALID', query.problem);
      // One key more than asked says whether this page holds the last key.
      const keys = await this.store.listStateKeys(owner, query.prefix, query.after, query.limit + 1);
      const page = keys.slice(0, query.limit);
      return { keys: page, nextPageToken: nextStatePageToken(page, keys.length > query.limit) };
    });
  }

  getSecret(token: string, key: string, reach = INSTANCE_REACH): Promise<SecretEntry> {
    return this.serve(token, 'GetSecret', reach, async ({ owner }) => {
      checked(hostKeyProblem(key));
      const sealed = await this.store.getSecret(owner, key);
      return sealed ? { found: true, value: this.box.open(sealed, secretSealContext(owner, key)) } : { found: false, value: '' };
    });
  }

  setSecret(token: string, key: string, value: string, reach = INSTANCE_REACH): Promise<void> {
    return this.serve(token, 'SetSecret', reach, async ({ profile, owner }) => {
      checked(hostKeyProblem(key) ?? secretValueProblem(value));
      const sealed = this.box.seal(value, secretSealContext(owner, key));
      written(profile, owner, 'secret', await this.store.putSecret(owner, key, sealed, LIMITS.hostKeysPerPlugin));
    });
  }

  deleteSecret(token: string, key: string, reach = INSTANCE_REACH): Promise<boolean> {
    return this.serve(token, 'DeleteSecret', reach, async ({ owner }) => {
      checked(hostKeyProblem(key));
      return this.store.deleteSecret(owner, key);
    });
  }

  /** Authenticates and authorises, runs `work`, and turns every other failure into a clean answer. */
  private async serve<T>(token: string, method: HostMethod, reach: HostReach, work: (request: Authorised) => Promise<T>): Promise<T> {
    const caller = this.sessions.find(token);
    if (!caller) throw new HostCallError('HOST_TOKEN_INVALID', 'the Host token is missing, wrong, or its plugin process has exited');
    const { profile } = caller;
    const denial = hostCallDenial(method, profile.capabilities);
    if (denial !== null) throw new HostCallError('CAPABILITY_NOT_GRANTED', denial);
    const request = authorised(profile, caller.call(reach.invocationId), reach, method);
    try {
      return await work(request);
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

/** The scope and invocation checks, in their order; the owner comes from the call, never from the plugin. */
function authorised(profile: HostProfile, call: HostCallBinding | undefined, reach: HostReach, method: HostMethod): Authorised {
  const { scope, invocationId } = reach;
  if (scope === 'unrecognised') throw new HostCallError('SCOPE_UNKNOWN', `${method} names a scope the host does not know: send INSTANCE, WORKSPACE or TASK`);
  if (invocationId !== '' && !call) {
    throw new HostCallError('INVOCATION_NOT_IN_FLIGHT', `${method} names an invocation that is not a call in flight to this plugin process`);
  }
  if (scope === 'instance') return { profile, call, owner: instanceOwner(profile.pluginId) };
  if (!call) {
    throw new HostCallError(
      'INVOCATION_REQUIRED',
      `a ${scope.toUpperCase()} ${method} must carry the invocation id of the call it serves, while that call runs`,
    );
  }
  const owner = scope === 'workspace' ? workspaceOwner(profile.pluginId, call.workspaceId) : taskOwner(profile.pluginId, call.workspaceId, call.taskId);
  return { profile, call, owner };
}

function checked(problem: string | null): void {
  if (problem !== null) throw new HostCallError('ENTRY_INVALID', problem);
}

function written(profile: HostProfile, owner: EntryOwner, kind: 'state' | 'secret', outcome: HostEntryWrite): void {
  if (outcome === 'limit_reached') {
    const holder = owner.scope === 'instance' ? 'the plugin' : `this ${owner.scope} of the plugin`;
    throw new HostCallError('KEY_LIMIT_REACHED', `${holder} already holds ${LIMITS.hostKeysPerPlugin} ${kind} keys, the most it may; delete some first`);
  }
  if (outcome === 'no_plugin') throw gone(profile);
}

function gone(profile: HostProfile): HostCallError {
  return new HostCallError(
    'NO_PLUGIN_RECORD',
    `plugin ${profile.pluginId} has no record: it is being installed (state and secrets can be written once it is active) or uninstalled`,
  );
}
