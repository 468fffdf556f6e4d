import { ToolportError } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';

/**
 * Reads a `POST /api/v1/sessions/prune` body (docs/http-api.md §6): none, `{}`, or
 * `{ "older_than_s": N }`; answers the age in milliseconds, undefined for every stopped
 * session. An unknown field is refused, so a misspelt age never removes them all.
 */
export function pruneOlderThanMsOf(body: unknown): number | undefined {
  if (body === undefined || body === null) return undefined;
  if (!isJsonObject(body)) throw new ToolportError('BAD_REQUEST', 'the body must be a JSON object');
  const unknown = Object.keys(body).filter((key) => key !== 'older_than_s');
  if (unknown.length > 0) throw new ToolportError('BAD_REQUEST', `unknown field(s): ${unknown.join(', ')}; only older_than_s is read`);
  const value = body.older_than_s;
  if (value === undefined) return undefined;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new ToolportError('BAD_REQUEST', 'older_than_s must be a whole number of seconds, 0 or more');
  }
  return value * 1000;
}
