import { TEMPLATE_ENV, templatePathForRun } from './postgres-template';

/**
 * jest globalSetup: names the folder where this run keeps one initialised cluster, so each
 * test file's server copies it instead of running initdb again. Made only if a file needs it.
 */
export default function setup(): void {
  process.env[TEMPLATE_ENV] = templatePathForRun();
}
