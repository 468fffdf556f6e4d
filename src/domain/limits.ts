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
} as const;
