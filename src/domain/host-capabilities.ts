import type { JsonObject } from './json';

/** The manifest capabilities the Host API enforces (docs/plugin-protocol.md §2, §10); every other key is only shown. */
export const GRANTING_CAPABILITIES = ['state', 'secrets'] as const;
export type GrantingCapability = (typeof GRANTING_CAPABILITIES)[number];

/** What a plugin's manifest grants it on the Host API. */
export type HostCapabilities = Record<GrantingCapability, boolean>;

/** The Host API's calls, by the names plugin authors know them (docs/plugin-protocol.md §13). */
export const HOST_METHODS = ['GetConfig', 'GetState', 'SetState', 'DeleteState', 'ListState', 'GetSecret', 'SetSecret', 'DeleteSecret'] as const;
export type HostMethod = (typeof HOST_METHODS)[number];

const NEEDED: Record<HostMethod, GrantingCapability | null> = {
  GetConfig: null,
  GetState: 'state',
  SetState: 'state',
  DeleteState: 'state',
  ListState: 'state',
  GetSecret: 'secrets',
  SetSecret: 'secrets',
  DeleteSecret: 'secrets',
};

/** Only the literal `true` grants: `state: "yes"` is refused at install, and absent means no. */
export function hostCapabilities(capabilities: JsonObject | undefined): HostCapabilities {
  return { state: capabilities?.state === true, secrets: capabilities?.secrets === true };
}

/** The capability `method` needs, or null when every plugin may call it. */
export function capabilityNeeded(method: HostMethod): GrantingCapability | null {
  return NEEDED[method];
}

/**
 * Null when `granted` allows `method`; else the refusal, naming the capability and how the
 * author grants it, as CAPABILITY_NOT_GRANTED carries it.
 */
export function hostCallDenial(method: HostMethod, granted: HostCapabilities): string | null {
  const needed = NEEDED[method];
  if (needed === null || granted[needed]) return null;
  return `${method} needs the capability "${needed}": declare \`capabilities: { ${needed}: true }\` in the plugin's manifest`;
}
