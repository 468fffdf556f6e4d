import type { Attributes } from '@opentelemetry/api';
import type { ToolCallFacts } from '../../application/ports/tracer';

/** Which tool call a process serves: the agent's MCP call (agentctl) or the link's invoke request (backend). */
export type TracedHop = 'agentctl' | 'backend';

/** A span's name and the attributes it starts with. */
export interface SpanStart {
  name: string;
  attributes: Attributes;
}

/**
 * The names and attributes of the spans a tool call makes, as the README's Traces paragraph
 * lists them: agentctl's span is named for the MCP method it serves, the backend's for the
 * link action, the plugin call for its gRPC method.
 */
export function toolCallSpan(hop: TracedHop, facts: ToolCallFacts | undefined): SpanStart {
  if (hop === 'agentctl') return { name: 'tools/call', attributes: { 'mcp.method.name': 'tools/call', ...factAttributes(facts) } };
  return { name: 'mcp.invoke_plugin_tool', attributes: factAttributes(facts) };
}

export function pluginCallSpan(facts: ToolCallFacts): SpanStart {
  return { name: 'toolport.plugin.v1.Plugin/InvokeAgentTool', attributes: { ...factAttributes(facts), 'rpc.system': 'grpc' } };
}

/** One attribute per fact given. */
export function factAttributes(facts: ToolCallFacts | undefined): Attributes {
  const attributes: Attributes = {};
  if (facts === undefined) return attributes;
  if (facts.invocationId !== undefined) attributes['toolport.invocation_id'] = facts.invocationId;
  if (facts.pluginId !== undefined) attributes['toolport.plugin_id'] = facts.pluginId;
  if (facts.tool !== undefined) attributes['toolport.tool'] = facts.tool;
  if (facts.exposedName !== undefined) attributes['gen_ai.tool.name'] = facts.exposedName;
  if (facts.catalogRevision !== undefined) attributes['toolport.catalog_revision'] = facts.catalogRevision;
  if (facts.approval !== undefined) attributes['toolport.approval'] = facts.approval;
  if (facts.approvedBy !== undefined) attributes['toolport.approved_by'] = facts.approvedBy;
  return attributes;
}
