import { ToolportError } from '../../domain/errors';
import { isJsonObject, type JsonObject } from '../../domain/json';

/** The `values` of a `PUT /api/v1/plugins/:id/config` body; BAD_REQUEST for any other shape (never echoing it). */
export function configValuesOf(body: unknown): JsonObject {
  if (!isJsonObject(body) || !isJsonObject(body.values)) {
    throw new ToolportError('BAD_REQUEST', 'the body must be a JSON object {"values": {…}} holding the whole configuration');
  }
  return body.values;
}

/**
 * The `?workspace=W` of a configuration route: undefined without one (the instance
 * configuration); BAD_REQUEST when given more than once. The id's own rule is the use case's.
 */
export function workspaceQueryOf(query: Record<string, unknown>): string | undefined {
  const value = query.workspace;
  if (value === undefined) return undefined;
  if (typeof value !== 'string') throw new ToolportError('BAD_REQUEST', 'give ?workspace= once, as one workspace id');
  return value;
}
