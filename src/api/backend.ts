/** `GET /healthz`: the backend serves. */
export interface Health {
  status: 'ok';
}

/** `GET /api/v1/backend`: the Toolport version and process id of the backend that answers. */
export interface BackendAbout {
  version: string | null;
  pid: number | null;
}
