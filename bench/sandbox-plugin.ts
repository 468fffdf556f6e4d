/**
 * The sandbox part's plugin (bench/sandbox.ts): the SDK serving one echo tool and nothing else,
 * bundled into one file so it runs from a version folder of its own, in bubblewrap or not.
 */
import { serve } from '@toolport/plugin-sdk';

void serve({ tools: { echo: (args) => ({ text: String(args.value) }) } });
