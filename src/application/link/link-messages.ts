import type { JsonObject } from '../../domain/json';

/**
 * What agentctl and the backend say to each other over their link (CONTRACT §7), in the
 * application's own terms. The WebSocket adapter owns the frames and the wire names.
 */

/**
 * `agentctl.hello`: where the agentctl's control API listens, if it serves one. It is shown
 * to nobody and never dialled: the backend pushes catalog changes over the link itself.
 */
export interface AgentctlHello {
  controlUrl?: string;
}

/** `mcp.invoke_plugin_tool`: one call of one plugin tool, arguments already validated by agentctl. */
export interface PluginToolRequest {
  pluginId: string;
  localName: string;
  arguments: JsonObject;
}

/** The answer to a plugin tool call; a plugin's own error result has `isError: true`. */
export interface PluginToolAnswer {
  invocationId: string;
  text: string;
  structuredContent: JsonObject | null;
  isError: boolean;
}
