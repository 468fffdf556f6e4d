import { MAX_LOG_RECORDS } from '../../application/plugins/get-plugin-logs';
import { ToolportError } from '../../domain/errors';

const DEFAULT_LIMIT = 100;

/** `?limit=N` of the logs route: a whole number from 1 (more than 1000 reads as 1000); 100 when absent. */
export function logLimitOf(raw: unknown): number {
  if (raw === undefined) return DEFAULT_LIMIT;
  if (typeof raw !== 'string' || !/^\d{1,9}$/.test(raw) || Number(raw) < 1) {
    throw new ToolportError('BAD_REQUEST', `limit must be a whole number from 1 to ${MAX_LOG_RECORDS}`);
  }
  return Math.min(Number(raw), MAX_LOG_RECORDS);
}
