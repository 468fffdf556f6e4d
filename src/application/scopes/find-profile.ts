import { ToolportError } from '../../domain/errors';
import type { CatalogPolicy, Profile } from '../../domain/scopes';

/** The profile called `name` under `policy`, or ToolportError NOT_FOUND. */
export function findProfile(policy: CatalogPolicy, name: string): Profile {
  const profile = policy.profiles.get(name);
  if (!profile) throw new ToolportError('NOT_FOUND', `no profile ${JSON.stringify(name)}`);
  return profile;
}
