/**
 * True when `error` says the connection itself is gone (the server restarted, an operator or
 * a failover ended it, the socket broke) rather than that a statement failed: the statement
 * never ran there, and a fresh connection may well succeed.
 */
export function isConnectionLoss(error: unknown): boolean {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && (code.startsWith('08') || ['57P01', '57P02', '57P03'].includes(code))) return true;
  return typeof message === 'string' && /Connection terminated|not queryable|ECONNRESET|EPIPE/.test(message);
}

/** True when no connection to the server could be made at all (it is down or out of reach). */
export function isUnreachable(error: unknown): boolean {
  const { code, message } = (typeof error === 'object' && error !== null ? error : {}) as { code?: unknown; message?: unknown };
  if (typeof code === 'string' && ['ECONNREFUSED', 'ENOENT', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'ENOTFOUND', 'EAI_AGAIN'].includes(code)) return true;
  return typeof message === 'string' && /timeout exceeded when trying to connect|Connection terminated due to connection timeout/.test(message);
}
