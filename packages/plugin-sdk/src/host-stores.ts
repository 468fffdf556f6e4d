import type { Scope } from './generated/toolport/plugin/v1/host';
import type { HostChannel } from './host-channel';
import { HostError } from './host-error';
import type { ScopedStore, StatePage } from './host-types';

/** Which entries a request names: its scope, and the call in flight it is made for ('' for none). */
export interface StoreTarget {
  scope: Scope;
  invocationId: string;
}

/**
 * State and secrets of one scope, every request carrying `target`: the instance scope with no
 * invocation id, or a call's workspace or task with that call's id (the host finds the
 * workspace and task from the call itself).
 */
export function hostStore(channel: HostChannel, target: StoreTarget): ScopedStore {
  const list = async (options: { prefix?: string; limit?: number; pageToken?: string } = {}): Promise<StatePage> => {
    const request = { prefix: options.prefix ?? '', limit: options.limit ?? 0, pageToken: options.pageToken ?? '', ...target };
    const page = await channel.call((c) => c.listState, request);
    return { keys: page.keys, nextPageToken: page.nextPageToken };
  };
  return {
    state: {
      get: async <T>(key: string) => {
        const answer = await channel.call((c) => c.getState, { key, ...target });
        return answer.found ? (JSON.parse(answer.valueJson) as T) : undefined;
      },
      set: async (key: string, value: unknown) => {
        const valueJson = JSON.stringify(value);
        if (valueJson === undefined) throw new HostError('INVALID_ARGUMENT', 'the value is not JSON data');
        await channel.call((c) => c.setState, { key, valueJson, ...target });
      },
      delete: async (key: string) => (await channel.call((c) => c.deleteState, { key, ...target })).deleted,
      list,
      keys: async function* (prefix = '') {
        let pageToken = '';
        do {
          const page = await list({ prefix, pageToken });
          yield* page.keys;
          pageToken = page.nextPageToken;
        } while (pageToken !== '');
      },
    },
    secrets: {
      get: async (key: string) => {
        const answer = await channel.call((c) => c.getSecret, { key, ...target });
        return answer.found ? answer.value : undefined;
      },
      set: async (key: string, value: string) => {
        await channel.call((c) => c.setSecret, { key, value, ...target });
      },
      delete: async (key: string) => (await channel.call((c) => c.deleteSecret, { key, ...target })).deleted,
    },
  };
}
