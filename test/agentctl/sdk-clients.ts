import { Client as ClientV2, StreamableHTTPClientTransport as HttpTransportV2 } from '@modelcontextprotocol/client';
import { StdioClientTransport as StdioTransportV2, type StdioServerParameters } from '@modelcontextprotocol/client/stdio';
import { Client as ClientV1 } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport as StdioTransportV1 } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport as HttpTransportV1 } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ToolListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';

/**
 * How an official client negotiates: SDK v1 (2025 only; it always offers its latest revision)
 * or SDK v2 in one of its modes (2025-03-26 by offering only that revision to `initialize`).
 */
export type ClientKind = 'v1' | 'v2 legacy' | 'v2 auto' | 'v2 pinned 2026-07-28' | 'v2 pinned 2025-03-26';

export const CLIENT_KINDS: readonly ClientKind[] = ['v1', 'v2 legacy', 'v2 auto', 'v2 pinned 2026-07-28', 'v2 pinned 2025-03-26'];

/** The protocol revision each kind ends up on against a server of both eras. */
export const EXPECTED_REVISION: Record<ClientKind, string> = {
  v1: '2025-11-25',
  'v2 legacy': '2025-11-25',
  'v2 auto': '2026-07-28',
  'v2 pinned 2026-07-28': '2026-07-28',
  'v2 pinned 2025-03-26': '2025-03-26',
};

export interface ListedTool {
  name: string;
  [key: string]: unknown;
}

export interface CallAnswer {
  isError?: boolean;
  content: Array<{ type: string; text?: string }>;
  structuredContent?: unknown;
}

/** One connected official client, whatever its SDK: the calls the scenario matrix makes. */
export interface SdkClient {
  readonly kind: ClientKind;
  /** The revision the connection negotiated. */
  revision(): string | undefined;
  listTools(): Promise<ListedTool[]>;
  /** `meta` goes in the request's `params._meta` (a `traceparent`, say). */
  callTool(name: string, args?: Record<string, unknown>, signal?: AbortSignal, meta?: Record<string, unknown>): Promise<CallAnswer>;
  /** `notifications/tools/list_changed` received so far. */
  listChanged(): number;
  close(): Promise<void>;
}

export type Endpoint = { http: string; token: string } | { stdio: StdioServerParameters };

/** Connects a client of `kind` to an agentctl over HTTP (with a bearer token) or stdio. */
export async function connectSdkClient(kind: ClientKind, endpoint: Endpoint): Promise<SdkClient> {
  return kind.startsWith('v1') ? connectV1(kind, endpoint) : connectV2(kind, endpoint);
}

async function connectV1(kind: ClientKind, endpoint: Endpoint): Promise<SdkClient> {
  const client = new ClientV1({ name: `matrix ${kind}`, version: '1.0.0' });
  let changes = 0;
  client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
    changes++;
  });
  const transport =
    'http' in endpoint
      ? new HttpTransportV1(new URL(endpoint.http), { requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } } })
      : new StdioTransportV1({ ...endpoint.stdio, stderr: 'ignore' });
  await client.connect(transport);
  return {
    kind,
    // The stdio transport keeps no revision; v1 always offers its latest, which agentctl accepts.
    revision: () => ('protocolVersion' in transport ? transport.protocolVersion : undefined) ?? '2025-11-25',
    listTools: async () => (await client.listTools()).tools,
    callTool: async (name, args, signal, meta) =>
      (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, undefined, { signal })) as CallAnswer,
    listChanged: () => changes,
    close: () => client.close(),
  };
}

async function connectV2(kind: ClientKind, endpoint: Endpoint): Promise<SdkClient> {
  let changes = 0;
  const client = new ClientV2(
    { name: `matrix ${kind}`, version: '1.0.0' },
    {
      versionNegotiation: { mode: kind === 'v2 auto' ? 'auto' : kind === 'v2 pinned 2026-07-28' ? { pin: '2026-07-28' } : 'legacy' },
      ...(kind === 'v2 pinned 2025-03-26' ? { supportedProtocolVersions: ['2025-03-26'] } : {}),
      listChanged: {
        tools: {
          autoRefresh: false,
          debounceMs: 0,
          onChanged: () => {
            changes++;
          },
        },
      },
    },
  );
  const transport =
    'http' in endpoint
      ? new HttpTransportV2(new URL(endpoint.http), { requestInit: { headers: { Authorization: `Bearer ${endpoint.token}` } } })
      : new StdioTransportV2({ ...endpoint.stdio, stderr: 'ignore' });
  await client.connect(transport);
  return {
    kind,
    revision: () => client.getNegotiatedProtocolVersion(),
    listTools: async () => (await client.listTools()).tools as ListedTool[],
    callTool: async (name, args, signal, meta) =>
      (await client.callTool({ name, arguments: args, ...(meta ? { _meta: meta } : {}) }, { signal })) as CallAnswer,
    listChanged: () => changes,
    close: () => client.close(),
  };
}
