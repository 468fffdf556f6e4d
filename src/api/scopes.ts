/**
 * A plugin's scope and a profile as `GET|PUT /api/v1/plugins/:id/scope` and
 * `/api/v1/profiles` answer them (docs/http-api.md §5), and the details of PROFILE_IN_USE.
 */
export type { PluginScope, Profile } from '../domain/scopes';

/** The `details` of 409 `PROFILE_IN_USE`: the sessions (not stopped) using the profile, and the approval rules naming it. */
export interface ProfileInUseDetails {
  sessions: string[];
  rules: number[];
}
