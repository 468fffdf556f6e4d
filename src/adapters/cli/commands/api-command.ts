import { CaFileError, readTrustedCa } from '../../shared/trusted-ca';
import { ApiClient } from '../api-client';
import { BackendUnreachableError, locateBackend } from '../backend-locator';
import { EXIT } from '../exit-codes';
import type { CliIo, CommandInput } from '../program';

export interface ApiCall {
  method: string;
  path: string;
  body?: unknown;
  /** Human output for a successful answer. */
  render(body: unknown): string;
}

/**
 * Runs one API call for a CLI command: `--json` prints exactly the API's answer on stdout
 * (the error body too, with exit 1); otherwise readable text. Exit 3 when the backend cannot
 * be reached, its backend.json is stale or the token is refused.
 */
export async function runApiCommand(io: CliIo, input: CommandInput, call: ApiCall): Promise<number> {
  try {
    const client = new ApiClient(locateBackend(input.global, io.env), readTrustedCa(input.global.ca, io.env));
    const answer = await client.request(call.method, call.path, call.body);
    if (input.global.json) {
      if (answer.body !== null) io.stdout(`${JSON.stringify(answer.body, null, 2)}\n`);
    } else if (answer.ok) {
      io.stdout(call.render(answer.body));
    } else {
      io.stderr(describeApiError(answer.body, answer.status));
    }
    return answer.ok ? EXIT.ok : EXIT.refused;
  } catch (error) {
    if (error instanceof BackendUnreachableError) {
      io.stderr(`toolport: ${error.message}\n`);
      return EXIT.unreachable;
    }
    if (error instanceof CaFileError) {
      io.stderr(`toolport: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

function describeApiError(body: unknown, status: number): string {
  const error = (body as { error?: { code?: string; message?: string; details?: unknown } } | null)?.error;
  if (!error) return `toolport: the backend answered HTTP ${status}\n`;
  let text = `toolport: ${error.code}: ${error.message}\n`;
  if (Array.isArray(error.details)) {
    for (const item of error.details as Array<{ path?: string; message?: string }>) {
      if (item && typeof item === 'object' && 'path' in item) text += `  ${item.path}: ${item.message}\n`;
    }
  } else if (error.details && typeof error.details === 'object' && Array.isArray((error.details as { stderr?: unknown }).stderr)) {
    const details = error.details as { exit_code?: number | null; stderr: string[] };
    text += `  exit code: ${details.exit_code ?? 'none'}\n`;
    for (const line of details.stderr) text += `  | ${line}\n`;
  }
  return text;
}
