/**
 * Tells a replica that another one committed a change to the shared store. A notification
 * can be missed (the connection that listens drops): after it is back, listeners are called
 * once more so they read the store again. Listeners must read what changed themselves.
 */
export abstract class StoreChanges {
  /** Registers `listener`; returns the function that removes it. */
  abstract onChange(listener: () => void): () => void;
  /** Starts listening; resolves once notifications are heard. */
  abstract start(): Promise<void>;
  /** Stops listening; idempotent. */
  abstract close(): Promise<void>;
}
