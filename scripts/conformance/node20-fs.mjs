// The conformance runner imports `globSync` from node:fs (Node 22). It only uses it for its tier
// report, which this project does not run; on Node 20 the import alone would stop the runner.
export * from 'node:fs';
export { default } from 'node:fs';

export function globSync() {
  throw new Error('globSync is not available on Node 20 (conformance tier reports are not supported here)');
}
