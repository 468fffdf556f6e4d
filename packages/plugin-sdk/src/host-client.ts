import { credentials, Metadata, status, type ServiceError } from '@grpc/grpc-js';
import { HostClient, Scope } from './generated/toolport/plugin/v1/host';
import type { HostErrorCode, PluginHost, StatePage } from './host-types';

/** A Host API call that failed; `code` says why (CONTRACT §10), `message` says what to do. */
export class HostError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HostError';
  }
}

const CODES: Partial<Record<number, HostErrorCode>> = {
  [status.UNAUTHENTICATED]: 'UNAUTHENTICATED',
  [status.PERMISSION_DENIED]: 'PERMISSION_DENIED',
  [status.INVALID_ARGUMENT]: 'INVALID_ARGUMENT',
  [status.RESOURCE_EXHAUSTED]: 'RESOURCE_EXHAUSTED',
  [status.UNAVAILABLE]: 'UNAVAILABLE',
  [status.DEADLINE_EXCEEDED]: 'UNAVAILABLE',
};

const CALL_DEADLINE_MS = 10_000;

/** The plugin's own entries: no call named. */
const INSTANCE = { scope: Scope.SCOPE_UNSPECIFIED, invocationId: '' };

type Unary<Req, Res> = (
  request: Req,
  metadata: Metadata,
  options: { deadline: number },
  callback: (error: ServiceError | null, response: Res) => void,
) => unknown;

/**
 * The Host API client of a plugin process: it reaches TOOLPORT_HOST_ADDR with the bearer
 * TOOLPORT_HOST_TOKEN its host gave this start. One channel, no transparent retries, a
 * deadline on every call. The configuration is read once: a change starts a new process.
 */
export function connectHost(env: NodeJS.ProcessEnv = process.env): PluginHost {
  const address = env.TOOLPORT_HOST_ADDR;
  const token = env.TOOLPORT_HOST_TOKEN;
  let client: HostClient | undefined;
  let config: Promise<Record<string, unknown>> | undefined;

  const call = <Req, Res>(pick: (c: HostClient) => Unary<Req, Res>, request: Req): Promise<Res> => {
    if (!address || !token) {
      return Promise.reject(
        new HostError('UNAVAILABLE', 'no Host API: TOOLPORT_HOST_ADDR and TOOLPORT_HOST_TOKEN are unset (the plugin was not started by Toolport)'),
      );
    }
    client ??= new HostClient(address, credentials.createInsecure(), { 'grpc.enable_retries': 0 });
    const metadata = new Metadata();
    metadata.set('authorization', `Bearer ${token}`);
    const method = pick(client).bind(client) as Unary<Req, Res>;
    return new Promise((resolve, reject) => {
      method(request, metadata, { deadline: Date.now() + CALL_DEADLINE_MS }, (error, response) => {
        if (error) reject(new HostError(CODES[error.code] ?? 'INTERNAL', error.details || error.message));
        else resolve(response);
      });
    });
  };

  const list = async (options: { prefix?: string; limit?: number; pageToken?: string } = {}): Promise<StatePage> => {
    const page = await call((c) => c.listState, { prefix: options.prefix ?? '', limit: options.limit ?? 0, pageToken: options.pageToken ?? '', ...INSTANCE });
    return { keys: page.keys, nextPageToken: page.nextPageToken };
  };

  return {
    config: <T>() => {
      config ??= call((c) => c.getConfig, { invocationId: '' }).then((answer) => JSON.parse(answer.valuesJson) as Record<string, unknown>);
      // A failed read is not cached: the next call asks again.
      config.catch(() => (config = undefined));
      return config as Promise<T>;
    },
    state: {
      get: async <T>(key: string) => {
        const answer = await call((c) => c.getState, { key, ...INSTANCE });
        return answer.found ? (JSON.parse(answer.valueJson) as T) : undefined;
      },
      set: async (key: string, value: unknown) => {
        const valueJson = JSON.stringify(value);
        if (valueJson === undefined) throw new HostError('INVALID_ARGUMENT', 'the value is not JSON data');
        await call((c) => c.setState, { key, valueJson, ...INSTANCE });
      },
      delete: async (key: string) => (await call((c) => c.deleteState, { key, ...INSTANCE })).deleted,
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
        const answer = await call((c) => c.getSecret, { key, ...INSTANCE });
        return answer.found ? answer.value : undefined;
      },
      set: async (key: string, value: string) => {
        await call((c) => c.setSecret, { key, value, ...INSTANCE });
      },
      delete: async (key: string) => (await call((c) => c.deleteSecret, { key, ...INSTANCE })).deleted,
    },
    close: () => client?.close(),
  };
}
