/**
 * Why the link, or one request on it, is refused, in the link's own terms (docs/http-api.md
 * §8). A tool call's own failures are InvocationErrors with their codes; these are about the
 * link: who is on it and what was asked of it. The WebSocket adapter maps each to its frame
 * code once.
 */
export const LINK_REFUSAL_CODES = [
  /** No session has the name the opening message gave. */
  'SESSION_UNKNOWN',
  /** The session was stopped: it may never link again. */
  'SESSION_STOPPED',
  /** The session was stored before links proved themselves: it has no verifier. */
  'SESSION_UNVERIFIABLE',
  /** The proof does not check out, or the opening message is not one. */
  'PROOF_INVALID',
  /** A request before the peer proved itself, or not the step expected, or too late. */
  'NOT_AUTHENTICATED',
  /** A frame or payload that is not what the action takes. */
  'MALFORMED_REQUEST',
  /** A request larger than any a peer may send. */
  'REQUEST_TOO_LARGE',
  'UNKNOWN_ACTION',
  /** A payload naming a task, session, workspace or surface other than the link's. */
  'FOREIGN_IDENTITY',
  /** Answering failed unexpectedly. */
  'REQUEST_FAILED',
] as const;
export type LinkRefusalCode = (typeof LINK_REFUSAL_CODES)[number];

/** A refused link or request; the message is what the peer is told (never which sessions exist). */
export class LinkRefusal extends Error {
  constructor(
    readonly code: LinkRefusalCode,
    message: string,
  ) {
    super(message);
    this.name = 'LinkRefusal';
  }
}
