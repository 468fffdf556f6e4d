/**
 * The Toolport plugin SDK (`@toolport/plugin-sdk`): write tool handlers, call `serve`, and the
 * process speaks the host's plugin protocol (CONTRACT §8): cookie check, handshake, health,
 * Shutdown, cancellation, logs on stderr, exit when the host is gone. Handlers reach the
 * Host API (configuration, state, secrets: CONTRACT §10) as `context.host`.
 *
 * @example
 * import { serve } from '@toolport/plugin-sdk';
 * void serve({ tools: { add_tag: async (args, context, signal) => ({ text: `tagged ${context.taskId}` }) } });
 */
export { serve } from './serve';
export { createPluginLogger } from './plugin-logger';
export { HostError } from './host-error';
export { pluginHost } from './plugin-host';
export type { AudioContent, ContentAnnotations, ContentBlock, EmbeddedResource, ImageContent, ResourceLink, TextContent } from './content-blocks';
export type { CallHost, HostErrorCode, PluginHost, ScopedStore, SecretStore, StatePage, StateStore } from './host-types';
export type { LogLevel, PluginLogger, ServedAddress, ServedPlugin, ServeOptions, ToolContext, ToolHandler, ToolResult } from './types';
