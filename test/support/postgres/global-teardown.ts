import { rmSync } from 'node:fs';
import { TEMPLATE_ENV } from './postgres-template';

/** jest globalTeardown: removes the run's cluster template, if a test file made one. */
export default function teardown(): void {
  const path = process.env[TEMPLATE_ENV];
  if (path) rmSync(path, { recursive: true, force: true });
}
