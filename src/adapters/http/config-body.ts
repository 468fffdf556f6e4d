import { ToolportError } from '../../domain/errors';
import { isJsonObject, type JsonObject } from '../../domain/json';

/** The `values` of a `PUT /api/v1/plugins/:id/config` body; BAD_REQUEST for any other shape (never echoing it). */
export function configValuesOf(body: unknown): JsonObject {
  if (!isJsonObject(body) || !isJsonObject(body.values)) {
    throw new ToolportError('BAD_REQUEST', 'the body must be a JSON object {"values": {…}} holding the whole configuration');
  }
  return body.values;
}
