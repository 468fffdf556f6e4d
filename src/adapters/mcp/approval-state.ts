import { createHmac, timingSafeEqual } from 'node:crypto';

/**
 * The `requestState` of a 2026-07-28 `input_required` approval (docs/approvals.md, client
 * mode): what it binds, signed with HMAC-SHA-256 under the agentctl's own key so a client can
 * read it but not forge or alter it. Wire form: `base64url(JSON).base64url(MAC)`.
 */
export interface ApprovalState {
  /** The one pending call it decides (a random id, used once). */
  nonce: string;
  session: string;
  /** The exposed tool name. */
  tool: string;
  /** SHA-256 hex of the arguments' canonical JSON. */
  argumentsSha256: string;
  /** Creation + the approval timeout, in ms since the epoch. */
  expiresAt: number;
}

export function sealApprovalState(key: Buffer, state: ApprovalState): string {
  const body = Buffer.from(JSON.stringify([state.nonce, state.session, state.tool, state.argumentsSha256, state.expiresAt]), 'utf8').toString('base64url');
  return `${body}.${mac(key, body)}`;
}

/** The state `text` carries, or undefined when it is malformed or its MAC is not this key's (forged or altered). */
export function openApprovalState(key: Buffer, text: string): ApprovalState | undefined {
  const parts = text.split('.');
  if (parts.length !== 2) return undefined;
  const [body, tag] = parts as [string, string];
  const expected = Buffer.from(mac(key, body), 'utf8');
  const given = Buffer.from(tag, 'utf8');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) return undefined;
  let fields: unknown;
  try {
    fields = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
  } catch {
    return undefined;
  }
  if (!Array.isArray(fields) || fields.length !== 5) return undefined;
  const [nonce, session, tool, argumentsSha256, expiresAt] = fields as unknown[];
  if (typeof nonce !== 'string' || typeof session !== 'string' || typeof tool !== 'string' || typeof argumentsSha256 !== 'string') return undefined;
  if (typeof expiresAt !== 'number' || !Number.isSafeInteger(expiresAt)) return undefined;
  return { nonce, session, tool, argumentsSha256, expiresAt };
}

function mac(key: Buffer, body: string): string {
  return createHmac('sha256', key).update(`toolport.approval-state:${body}`, 'utf8').digest('base64url');
}
