/** The numbers of the contract, named once. */
export const LIMITS = {
  manifestBytes: 1024 * 1024,
  packageUnpackedBytes: 200 * 1024 * 1024,
  agentToolsPerPlugin: 16,
  toolTitleBytes: 128,
  toolDescriptionBytes: 1024,
  schemaBytes: 65536,
  exposedNameLength: 64,
  resultBytes: 1048576,
  frameBytes: 8 * 1024 * 1024,
  /** The compact JSON of one call's arguments. */
  argumentBytes: 4 * 1024 * 1024,
  defaultMaxInFlight: 32,
  /** Host API (§10): keys a plugin may hold in its state, and again in its secrets. */
  hostKeysPerPlugin: 10000,
  hostKeyLength: 256,
  stateValueBytes: 65536,
  secretValueBytes: 16384,
  /** ListState: the default and the most keys in one page. */
  statePageMax: 1000,
} as const;
