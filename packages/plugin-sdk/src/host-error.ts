import { status, type ServiceError } from '@grpc/grpc-js';
import type { HostErrorCode } from './host-types';

/** A Host API call that failed; `code` says why (see HostErrorCode), `message` says what to do. */
export class HostError extends Error {
  constructor(
    readonly code: HostErrorCode,
    message: string,
  ) {
    super(message);
    this.name = 'HostError';
  }
}

const CODES: Partial<Record<number, HostErrorCode>> = {
  [status.UNAUTHENTICATED]: 'UNAUTHENTICATED',
  [status.PERMISSION_DENIED]: 'PERMISSION_DENIED',
  [status.INVALID_ARGUMENT]: 'INVALID_ARGUMENT',
  [status.RESOURCE_EXHAUSTED]: 'RESOURCE_EXHAUSTED',
  [status.UNAVAILABLE]: 'UNAVAILABLE',
  [status.DEADLINE_EXCEEDED]: 'UNAVAILABLE',
};

/** The host's gRPC status as a HostError, with the host's own message (it says what to do). */
export function hostErrorFrom(error: ServiceError): HostError {
  return new HostError(CODES[error.code] ?? 'INTERNAL', error.details || error.message);
}
