/** Identifiers and secrets. */
export abstract class IdGenerator {
  /** A fresh unique id for an invocation, session, instance… (URL-safe). */
  abstract newId(): string;
  /** A fresh secret of at least 256 bits, URL-safe text. */
  abstract newToken(): string;
  /** `n` random lowercase hex digits (the generation suffix). */
  abstract randomHex(n: number): string;
}
