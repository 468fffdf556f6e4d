import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { newDataDir, removeDataDirs } from '../../adapters/grpc/support/plugin-specs';
import { leftoverProcesses, processExists } from '../../adapters/grpc/support/proc-scan';
import { buildSdkFixture, type BuiltFixture } from '../../adapters/grpc/support/sdk-fixture';
import { buildGoFixtures, type GoFixtures } from './support/go-fixtures';

jest.setTimeout(30_000);

/**
 * The other direction: a Go program using HashiCorp go-plugin 1.0.1 with AutoMTLS, as any
 * go-plugin host, runs a plugin built with the TypeScript SDK and calls it. go-plugin's client
 * sends its certificate in PLUGIN_CLIENT_CERT, reads the SDK's from the handshake and dials
 * TLS to `localhost`; the call can only succeed if both sides agree on every part of that.
 */
describe('a go-plugin host with AutoMTLS calling an SDK plugin', () => {
  let go: GoFixtures;
  let built: BuiltFixture;

  beforeAll(() => {
    go = buildGoFixtures();
    built = buildSdkFixture();
  }, 180_000);
  afterAll(() => {
    built.remove();
    removeDataDirs();
  });

  it('gets the answer over mutual TLS, then stops the plugin through Shutdown', async () => {
    const { stdout, stderr } = await promisify(execFile)(go.host, [process.execPath, built.script], {
      env: { PATH: process.env.PATH, TOOLPORT_PLUGIN_DATA_DIR: newDataDir() },
      timeout: 20_000,
    });
    const answer = JSON.parse(stdout.trim()) as { text: string; structured_content_json: string; is_error: boolean; negotiated_version: number; pid: number };
    expect(answer).toMatchObject({ text: 'echoed go-host-1', is_error: false, negotiated_version: 1 });
    expect(JSON.parse(answer.structured_content_json)).toEqual({
      arguments: { from: 'go' },
      // The Go host sends no profile (its stubs predate it): the SDK gives the handler `default`.
      context: { task_id: 'task-go', session_id: 'session-go', workspace_id: 'ws-go', surface: 'kanban-task', profile: 'default' },
    });
    // go-plugin's client logs the plugin's stderr: the SDK served TLS and was asked to shut down.
    expect(stderr).toContain('configuring client automatic mTLS');
    expect(stderr).toMatch(/"port":\d+,"tls":true/);
    expect(stderr).toContain('the host asked it to shut down');
    expect(processExists(answer.pid)).toBe(false);
    expect(leftoverProcesses([built.dir], [answer.pid])).toEqual([]);
  });
});
