/** What the SDK floors (v1 and v2) share: the one echo tool and reading a JSON body. */
import type { IncomingMessage } from 'node:http';

export const ECHO_TOOL = {
  name: 'echo',
  description: 'Answers its value.',
  inputSchema: { type: 'object' as const, properties: { value: { type: 'string' } }, required: ['value'] },
};

/** The echo tool's answer to `arguments`. */
export function echoResult(args: unknown): { content: Array<{ type: 'text'; text: string }> } {
  return { content: [{ type: 'text', text: String((args as { value?: unknown } | undefined)?.value ?? '') }] };
}

export function readJson(req: IncomingMessage): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      try {
        resolve(text === '' ? undefined : JSON.parse(text));
      } catch (error) {
        reject(error);
      }
    });
    req.on('error', reject);
  });
}
