/**
 * `toolport/plugin-sdk`, kept for one release: the SDK is now its own package,
 * `@toolport/plugin-sdk` (packages/plugin-sdk). Import that instead.
 */
export * from '@toolport/plugin-sdk';
