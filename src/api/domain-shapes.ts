/**
 * What the domain itself defines and every wire carries as it is (the agentctl link, the MCP
 * catalog and this API): the catalog snapshot and its tools, a tool's declaration, the status
 * words, the surfaces, a call's outcome, a violation. Taken from there as types, never declared
 * twice; the domain imports nothing, so the console can read these too.
 */
export type { CallOutcome } from '../domain/call-outcome';
export type { CatalogSnapshot as Catalog, CatalogTool } from '../domain/catalog';
export type { Violation } from '../domain/errors';
export type { JsonObject, JsonValue } from '../domain/json';
export type { AgentToolDeclaration, ToolAnnotations } from '../domain/manifest';
export type { PluginPermissions } from '../domain/permissions';
export type { PluginStatus } from '../domain/plugin-record';
export type { SessionStatus } from '../domain/session';
export type { Surface, ToolSurface } from '../domain/surfaces';
