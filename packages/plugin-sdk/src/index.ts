/**
 * The Toolport plugin SDK (`@toolport/plugin-sdk`): write tool handlers, call `serve`, and the
 * process speaks the host's plugin protocol (docs/plugin-protocol.md in Toolport): cookie check,
 * handshake on 127.0.0.1 or a unix socket, health, Shutdown, mutual TLS, cancellation, logs on
 * stderr, exit when the host is gone. Handlers reach the Host API (configuration, state and
 * secrets, the call's workspace and task entries) as `context.host`, and may answer MCP content
 * blocks beside their text.
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
