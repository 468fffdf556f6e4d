/** What the operator configured (config_schema of the manifest). */
export interface TrackerConfig {
  base_url: string;
  project: string;
  api_token: string;
}

export interface Issue {
  id: string;
  title: string;
  url: string;
}

const REQUEST_TIMEOUT_MS = 10_000;

/** A tracker answer that is not a success; the message holds the status, never the token. */
export class TrackerError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TrackerError';
  }
}

/**
 * The tracker's HTTP API, authenticated with the configured token as a bearer token:
 * `GET /whoami`, `POST /projects/<project>/issues {title, body}` → `{id, title, url}`,
 * `GET /issues/<id>` → `{id, title, url, status}`.
 */
export class TrackerApi {
  constructor(private readonly config: TrackerConfig) {}

  /** Resolves the account name the token belongs to; rejects when the tracker refuses it. */
  async whoami(): Promise<string> {
    const answer = (await this.request('GET', '/whoami')) as { name?: unknown };
    return String(answer.name ?? '');
  }

  async createIssue(title: string, body: string, signal?: AbortSignal): Promise<Issue> {
    const path = `/projects/${encodeURIComponent(this.config.project)}/issues`;
    return issueOf(await this.request('POST', path, { title, body }, signal));
  }

  async getIssue(id: string, signal?: AbortSignal): Promise<Issue & { status: string }> {
    const answer = await this.request('GET', `/issues/${encodeURIComponent(id)}`, undefined, signal);
    return { ...issueOf(answer), status: String((answer as { status?: unknown }).status ?? 'unknown') };
  }

  private async request(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<unknown> {
    const url = `${this.config.base_url.replace(/\/+$/, '')}${path}`;
    const timeout = AbortSignal.timeout(REQUEST_TIMEOUT_MS);
    let response: Response;
    try {
      response = await fetch(url, {
        method,
        headers: { authorization: `Bearer ${this.config.api_token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      });
    } catch (error) {
      throw new TrackerError(`the tracker at ${this.config.base_url} cannot be reached (${(error as Error).name})`);
    }
    if (response.status === 401 || response.status === 403) throw new TrackerError(`the tracker refused the configured api_token (HTTP ${response.status})`);
    if (!response.ok) throw new TrackerError(`the tracker answered HTTP ${response.status} to ${method} ${path}`);
    return response.json();
  }
}

function issueOf(value: unknown): Issue {
  const issue = value as Partial<Issue>;
  return { id: String(issue.id ?? ''), title: String(issue.title ?? ''), url: String(issue.url ?? '') };
}
