/**
 * Every refusal's body (docs/http-api.md §2): `code` is stable, `message` is for people,
 * `details` is null or, for some codes, structured (a list of Violations, say).
 */
export interface ErrorBody {
  error: { code: string; message: string; details: unknown };
}
