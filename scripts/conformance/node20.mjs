// `node --import ./scripts/conformance/node20.mjs …/conformance/dist/index.js`: runs the official
// conformance runner on Node 20.
import { register } from 'node:module';

register('./node20-hooks.mjs', import.meta.url);
