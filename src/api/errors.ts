/**
 * Every refusal's body (docs/http-api.md §2): `code` is stable, `message` is for people,
 * `details` is null or, for some codes, structured (a list of Violations, say).
 */
export interface ErrorBody {
  error: { code: string; message: string; details: unknown };
}

/** The `details` of 422 `PLUGIN_START_FAILED`: the process's exit code (null if it was killed) and its last stderr lines. */
export interface StartFailureDetails {
  exit_code: number | null;
  stderr: string[];
}
