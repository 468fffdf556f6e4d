import { APPROVAL_REASON_MAX_LENGTH } from '../../domain/approvals';
import { hasControlCharacters } from '../../domain/control-characters';
import { ToolportError } from '../../domain/errors';
import { isJsonObject } from '../../domain/json';

/**
 * Reads a `POST /api/v1/approvals/:id/approve|deny` body (docs/http-api.md, approvals): none,
 * `{}`, or `{"reason": "…"}`; answers the reason or null. An unknown field is refused.
 */
export function decisionReasonOf(body: unknown): string | null {
  if (body === undefined || body === null) return null;
  if (!isJsonObject(body)) throw new ToolportError('BAD_REQUEST', 'the body must be a JSON object {"reason"?}');
  const unknown = Object.keys(body).filter((key) => key !== 'reason');
  if (unknown.length > 0) throw new ToolportError('BAD_REQUEST', `unknown field(s): ${unknown.join(', ')}; only reason is read`);
  const { reason } = body;
  if (reason === undefined || reason === null) return null;
  if (typeof reason !== 'string' || reason.length > APPROVAL_REASON_MAX_LENGTH) {
    throw new ToolportError('BAD_REQUEST', `reason must be a string of at most ${APPROVAL_REASON_MAX_LENGTH} characters`);
  }
  if (hasControlCharacters(reason)) throw new ToolportError('BAD_REQUEST', 'reason must not contain control characters');
  return reason === '' ? null : reason;
}
