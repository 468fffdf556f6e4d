/** `GET /healthz`: the backend serves. */
export interface Health {
  status: 'ok';
}

/** `GET /api/v1/backend`: the Toolport version and process id of the backend that answers. */
export interface BackendAbout {
  version: string | null;
  pid: number | null;
  /** Which store it keeps its records in: the SQLite file, or PostgreSQL as this replica (never the URL, which may hold a password). */
  store: BackendStore | null;
}

export type BackendStore = { kind: 'sqlite'; path: string } | { kind: 'postgres'; replica_id: string };

/** `POST /api/v1/auth/begin`: a SCRAM-SHA-256 client-first-message (docs/http-api.md §1). */
export interface SignInBegin {
  mechanism: 'SCRAM-SHA-256';
  message: string;
}

/** The backend's server-first-message, and the exchange it belongs to (for `finish`). */
export interface SignInChallenge {
  exchange: string;
  message: string;
}

/** `POST /api/v1/auth/finish`: the client-final-message of `exchange`. */
export interface SignInFinish {
  exchange: string;
  message: string;
}

/**
 * The server-final-message (the backend's proof, checked by the client before it uses
 * anything else here), the credential this backend process accepts for `expires_in_ms`, and
 * the process's instance id (the one backend.json names).
 */
export interface SignedIn {
  message: string;
  credential: string;
  expires_in_ms: number;
  instance_id: string;
}
