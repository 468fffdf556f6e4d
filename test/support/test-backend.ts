import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { WsAgentctlEndpoint, type AgentctlEndpointOptions } from '../../src/adapters/websocket/ws-agentctl-endpoint';
import { WsAgentctlLinks } from '../../src/adapters/websocket/ws-agentctl-links';
import { ScramLinkProof } from '../../src/adapters/websocket/scram-link-proof';
import { LinkCredentials } from '../../src/application/link/link-credentials';
import { LinkRefusal } from '../../src/application/link/link-refusal';
import type { AgentctlHello, AskClient, PluginToolAnswer, PluginToolRequest, RefusedCallReport } from '../../src/application/ports/link-messages';
import type { AgentctlRequestHandler } from '../../src/application/sessions/agentctl-requests';
import type { LinkChallenge } from '../../src/application/sessions/authenticate-session';
import { hashToken } from '../../src/domain/tokens';
import type { CatalogSnapshot, CatalogTool } from '../../src/domain/catalog';
import type { LinkedSession, SessionIdentity } from '../../src/domain/session';
import type { ToolSurface } from '../../src/domain/surfaces';
import { CapturingLogger } from './capturing-logger';

/** `onHold` tells the agentctl the call is held for an approval, and when it is released (docs/approvals.md). */
export type InvokeBehaviour = (
  request: PluginToolRequest,
  signal: AbortSignal,
  onHold?: (held: boolean, waitMs: number) => void,
  askClient?: AskClient,
) => Promise<PluginToolAnswer>;

export const TEST_IDENTITY: SessionIdentity = { task_id: 'task-1', session_id: 'session-1', workspace_id: 'ws-1', surface: 'kanban-task' };
export const TEST_SESSION_TOKEN = 'session-token';

/** Answers with the arguments echoed as text. */
export const echoInvoke: InvokeBehaviour = async (request) => ({
  invocationId: `inv-${request.localName}`,
  text: JSON.stringify(request.arguments),
  structuredContent: null,
  isError: false,
});

/** Never answers; resolves nothing until the signal aborts (then rejects). */
export const hangingInvoke: InvokeBehaviour = (_request, signal) =>
  new Promise((_resolve, reject) => signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }));

/** A catalog tool on the default prefix (`kandev_<slug>_<name>`). */
export function catalogTool(pluginId: string, localName: string, overrides: Partial<CatalogTool> = {}): CatalogTool {
  const slug = pluginId
    .toLowerCase()
    .replace(/[^a-z0-9_]/g, '_')
    .replace(/^_+|_+$/g, '');
  const surfaces: ToolSurface[] = ['kanban-task', 'office-task'];
  return {
    plugin_id: pluginId,
    plugin_version: '1.0.0',
    local_name: localName,
    exposed_name: `kandev_${slug}_${localName}`,
    description: `The ${localName} tool`,
    surfaces,
    input_schema: { type: 'object', properties: { value: { type: 'string' } } },
    annotations: { read_only_hint: false, destructive_hint: true, idempotent_hint: false, open_world_hint: true },
    ...overrides,
  };
}

export function snapshotOf(tools: CatalogTool[], revision = 1, generation = '000000000001-aaaaaaaa'): CatalogSnapshot {
  return { generation, revision, tools: [...tools].sort((a, b) => (a.exposed_name < b.exposed_name ? -1 : a.exposed_name > b.exposed_name ? 1 : 0)) };
}

/**
 * A scriptable backend core standing in for AgentctlRequests: the token it accepts, the
 * identity it binds, the snapshot it serves, how it answers invokes. It records hellos, pulls,
 * invokes and cancellations (an invoke's signal aborting).
 */
export class ScriptedBackend implements AgentctlRequestHandler {
  identity: SessionIdentity = { ...TEST_IDENTITY };
  /** The profile the link is bound with (the backend reads it from the stored session). */
  profile = 'default';
  sessionToken = TEST_SESSION_TOKEN;
  catalog: CatalogSnapshot = snapshotOf([catalogTool('acme.tools', 'add_tag')]);
  onInvoke: InvokeBehaviour = echoInvoke;
  readonly hellos: AgentctlHello[] = [];
  readonly invokes: PluginToolRequest[] = [];
  readonly cancelled: PluginToolRequest[] = [];
  pulls = 0;
  private readonly cancelWaiters = new Set<() => void>();

  /**
   * When set, the backend answers with a verifier made from this token instead of its own:
   * a process on the backend's port that does not hold the session's verifier.
   */
  impostorToken: string | undefined;
  private readonly proof = new ScramLinkProof();
  private readonly verifiers = new Map<string, string>();

  async authBegin(opening: string): Promise<{ reply: string; challenge: LinkChallenge }> {
    const opened = this.proof.open(opening);
    if (!opened.ok || opened.value.sessionName !== hashToken(this.sessionToken)) throw new LinkRefusal('SESSION_UNKNOWN', 'unknown or ended session');
    const verifier = this.verifierOf(this.impostorToken ?? this.sessionToken);
    const challenge = opened.value.challenge(verifier);
    if (!challenge.ok) throw new LinkRefusal('SESSION_UNVERIFIABLE', 'unknown or ended session');
    return { reply: challenge.value.message, challenge: { sessionId: this.identity.session_id, verifier, proof: challenge.value } };
  }

  async authFinish(challenge: LinkChallenge, proof: string): Promise<{ reply: string; session: LinkedSession }> {
    const checked = challenge.proof.check(proof);
    // An impostor cannot check the proof either; it answers as if it could.
    if (this.impostorToken !== undefined) return { reply: `v=${Buffer.alloc(32).toString('base64')}`, session: { ...this.identity, profile: this.profile } };
    if (!checked.ok) throw new LinkRefusal('PROOF_INVALID', 'unknown or ended session');
    return { reply: checked.value, session: { ...this.identity, profile: this.profile } };
  }

  private verifierOf(token: string): string {
    let verifier = this.verifiers.get(token);
    if (verifier === undefined) {
      verifier = this.proof.verifierFor(token);
      this.verifiers.set(token, verifier);
    }
    return verifier;
  }

  async hello(_session: SessionIdentity, hello: AgentctlHello): Promise<SessionIdentity> {
    this.hellos.push(hello);
    return { ...this.identity };
  }

  async snapshot(): Promise<CatalogSnapshot> {
    this.pulls += 1;
    return this.catalog;
  }

  invoke(
    _session: SessionIdentity,
    request: PluginToolRequest,
    signal: AbortSignal,
    onHold?: (held: boolean, waitMs: number) => void,
    askClient?: AskClient,
  ): Promise<PluginToolAnswer> {
    this.invokes.push(request);
    signal.addEventListener(
      'abort',
      () => {
        this.cancelled.push(request);
        for (const waiter of [...this.cancelWaiters]) waiter();
      },
      { once: true },
    );
    return this.onInvoke(request, signal, onHold, askClient);
  }

  readonly goodbyes: SessionIdentity[] = [];
  /** Every `mcp.report_refused_call`, with the session it came on. */
  readonly refusals: { session: SessionIdentity; report: RefusedCallReport }[] = [];

  refused(session: SessionIdentity, report: RefusedCallReport): void {
    this.refusals.push({ session, report });
  }

  async goodbye(session: SessionIdentity): Promise<void> {
    this.goodbyes.push(session);
  }

  linkClosed(): void {}

  /** Resolves with the ms it took once `count` cancellations were seen; rejects after `timeoutMs`. */
  waitForCancels(count: number, timeoutMs: number): Promise<number> {
    const started = Date.now();
    return new Promise((resolve, reject) => {
      const check = (): void => {
        if (this.cancelled.length < count) return;
        this.cancelWaiters.delete(check);
        clearTimeout(timer);
        resolve(Date.now() - started);
      };
      const timer = setTimeout(() => {
        this.cancelWaiters.delete(check);
        reject(new Error(`saw ${this.cancelled.length} cancellations, wanted ${count}, within ${timeoutMs} ms`));
      }, timeoutMs);
      this.cancelWaiters.add(check);
      check();
    });
  }
}

/**
 * The backend's real §7 endpoint (WsAgentctlEndpoint) on a real HTTP server in front of a
 * ScriptedBackend; it can be stopped (every link dropped: a crashed backend) and restarted on
 * the same port.
 */
export class TestBackendServer {
  private http: Server | null = null;
  private endpoint: WsAgentctlEndpoint | null = null;
  /** The links of the real endpoint: what the backend pushes catalog changes through. */
  links = new WsAgentctlLinks();
  private boundPort = 0;

  private constructor(
    readonly backend: ScriptedBackend,
    private readonly options: Partial<AgentctlEndpointOptions>,
  ) {}

  static async start(backend = new ScriptedBackend(), options: Partial<AgentctlEndpointOptions> & { port?: number } = {}): Promise<TestBackendServer> {
    const { port = 0, ...endpointOptions } = options;
    const server = new TestBackendServer(backend, endpointOptions);
    await server.listen(port);
    return server;
  }

  get sessionToken(): string {
    return this.backend.sessionToken;
  }

  get port(): number {
    return this.boundPort;
  }

  get url(): string {
    return `http://127.0.0.1:${this.boundPort}`;
  }

  linkCount(): number {
    return this.endpoint?.linkCount() ?? 0;
  }

  /** Drops every link and stops listening (a crashed backend). */
  async stop(): Promise<void> {
    this.endpoint?.close();
    this.endpoint = null;
    const http = this.http;
    this.http = null;
    if (!http) return;
    http.closeAllConnections();
    await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  /** Listens again on the same port. */
  async restart(): Promise<void> {
    await this.listen(this.boundPort);
  }

  private async listen(port: number): Promise<void> {
    this.links = new WsAgentctlLinks();
    const endpoint = new WsAgentctlEndpoint(this.backend, this.links, new CapturingLogger(), { pingIntervalMs: 10000, missedPongsAllowed: 2, ...this.options });
    const http = createServer((_req, res) => {
      res.statusCode = 404;
      res.end();
    });
    endpoint.attach(http);
    await new Promise<void>((resolve, reject) => {
      http.once('error', reject);
      http.listen(port, '127.0.0.1', () => resolve());
    });
    this.http = http;
    this.endpoint = endpoint;
    this.boundPort = (http.address() as AddressInfo).port;
  }
}

/** The credentials an agentctl holding `token` links with (the WebSocket adapter's proof). */
export function linkCredentials(token: string): LinkCredentials {
  return new LinkCredentials(token, new ScramLinkProof());
}

/** Polls `condition` every 5 ms until it holds; rejects after `timeoutMs`. */
export async function waitUntil(condition: () => boolean, timeoutMs = 2000, what = 'condition'): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!condition()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
}
