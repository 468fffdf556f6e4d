/**
 * Lets the root type-check (`tsc -p tsconfig.json`, node10 resolution, which cannot resolve a
 * package importing itself by name) see `toolport/plugin-sdk` as the SDK source. Bundling maps
 * the same name (scripts/build-examples.js). A plugin written outside this repository imports
 * the installed `toolport` package instead and needs no such file.
 */
declare module 'toolport/plugin-sdk' {
  type Sdk = typeof import('../../src/adapters/grpc/sdk/index');
  export const serve: Sdk['serve'];
  export const createPluginLogger: Sdk['createPluginLogger'];
  export const pluginHost: Sdk['pluginHost'];
  export const HostError: Sdk['HostError'];
  export type HostError = import('../../src/adapters/grpc/sdk/index').HostError;
  export type HostErrorCode = import('../../src/adapters/grpc/sdk/index').HostErrorCode;
  export type PluginHost = import('../../src/adapters/grpc/sdk/index').PluginHost;
  export type StatePage = import('../../src/adapters/grpc/sdk/index').StatePage;
  export type ToolContext = import('../../src/adapters/grpc/sdk/index').ToolContext;
  export type ToolHandler = import('../../src/adapters/grpc/sdk/index').ToolHandler;
  export type ToolResult = import('../../src/adapters/grpc/sdk/index').ToolResult;
  export type ServeOptions = import('../../src/adapters/grpc/sdk/index').ServeOptions;
  export type ServedPlugin = import('../../src/adapters/grpc/sdk/index').ServedPlugin;
  export type PluginLogger = import('../../src/adapters/grpc/sdk/index').PluginLogger;
  export type LogLevel = import('../../src/adapters/grpc/sdk/index').LogLevel;
}
