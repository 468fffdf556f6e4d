import type { ApiRoute, ApiRoutes, ErrorBody, StartFailureDetails, Violation } from '../../../api';
import { CaFileError, readTrustedCa } from '../../shared/trusted-ca';
import { ApiClient, type ApiAnswer, type RouteRequest } from '../api-client';
import { BackendUnreachableError, locateBackend } from '../backend-locator';
import { EXIT } from '../exit-codes';
import { withProgress } from '../progress';
import type { CliIo, CommandInput } from '../program';

/** One call of `route` for a command, and how its answer reads. */
export type ApiCall<R extends ApiRoute> = RouteRequest<R> & {
  route: R;
  /** Human output for a successful answer. */
  render(body: ApiRoutes[R]): string;
  /** What a slow call is doing (`installing …`), shown on a terminal after ~2 s. */
  progress?: string;
};

/**
 * Runs one API call for a CLI command: `--json` prints exactly the API's answer on stdout
 * (the error body too, with exit 1); otherwise readable text. Exit 3 when the backend cannot
 * be reached, its backend.json is stale or the token is refused.
 */
export function runApiCommand<R extends ApiRoute>(io: CliIo, input: CommandInput, call: ApiCall<R>): Promise<number> {
  const request = (client: ApiClient) => client.call(call.route, call);
  if (call.progress === undefined) return runApiWork(io, input, request, call.render);
  const label = call.progress;
  return runApiWork(
    io,
    input,
    (client) => withProgress(io.stderrIsTerminal === true && !input.global.json, io.stderr, label, () => request(client)),
    call.render,
  );
}

/**
 * As runApiCommand, for a command that needs several calls: `work` makes them and answers
 * the one to show (the first refusal, or the last answer).
 */
export function runApiWork<Body>(
  io: CliIo,
  input: CommandInput,
  work: (client: ApiClient) => Promise<ApiAnswer<Body>>,
  render: (body: Body) => string,
): Promise<number> {
  return withApiClient(io, input, async (client) => printAnswer(io, input, await work(client), render));
}

/**
 * Prints one answer as runApiCommand does (`--json`: the body exactly, on stdout, error bodies
 * included; else `render` or the error's one line on stderr) and answers its exit code.
 */
export function printAnswer<Body>(io: CliIo, input: CommandInput, answer: ApiAnswer<Body>, render: (body: Body) => string): number {
  if (input.global.json) {
    if (answer.body !== null) io.stdout(`${JSON.stringify(answer.body, null, 2)}\n`);
  } else if (answer.ok) {
    io.stdout(render(answer.body));
  } else {
    io.stderr(describeApiError(answer.body, answer.status));
  }
  return answer.ok ? EXIT.ok : EXIT.refused;
}

/**
 * Finds the backend and hands `use` a client for it, answering `use`'s exit code; exit 3 when
 * it cannot be reached, its backend.json is stale or the token is refused (with `--json`, a
 * refusal's body on stdout), exit 2 for a CA file that cannot be read.
 */
export async function withApiClient(io: CliIo, input: CommandInput, use: (client: ApiClient) => Promise<number>): Promise<number> {
  try {
    return await use(new ApiClient(locateBackend(input.global, io.env), readTrustedCa(input.global.ca, io.env)));
  } catch (error) {
    if (error instanceof BackendUnreachableError) {
      // `--json` answers with the backend's own refusal when there is one (a 401 body).
      if (input.global.json && error.body !== null) io.stdout(`${JSON.stringify(error.body, null, 2)}\n`);
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
  const error = (body as Partial<ErrorBody> | null)?.error;
  if (!error) return `toolport: the backend answered HTTP ${status}\n`;
  let text = `toolport: ${error.code}: ${error.message}\n`;
  if (Array.isArray(error.details)) {
    for (const item of error.details as Violation[]) {
      if (item && typeof item === 'object' && 'path' in item) text += `  ${item.path}: ${item.message}\n`;
    }
  } else if (error.details && typeof error.details === 'object' && Array.isArray((error.details as { stderr?: unknown }).stderr)) {
    const details = error.details as StartFailureDetails;
    text += `  exit code: ${details.exit_code ?? 'none'}\n`;
    for (const line of details.stderr) text += `  | ${line}\n`;
  }
  return text;
}
