import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { resultText } from '../../support/clients/mcp-agent';
import { writePluginPackage } from '../../support/packages/plugin-package';
import { BackendWorld } from '../../support/processes/backend-world';
import { runToolport } from '../../support/processes/run-toolport';

jest.setTimeout(60_000);

const LABELLER = `
import { serve } from '@toolport/plugin-sdk';
void serve({ tools: { label: async (args, context) => String((await context.host.config()).label) } });
`;

function writeLabeller(dir: string): string {
  return writePluginPackage(dir, {
    manifest: {
      api_version: 1,
      id: 'e2e.labeller',
      version: '1.0.0',
      config_schema: { type: 'object', properties: { label: { type: 'string', format: 'password' } }, required: ['label'] },
      agent_tools: [{ name: 'label', description: 'Answers the configured label.', surfaces: ['kanban-task'], input_schema: { type: 'object' } }],
    },
    source: LABELLER,
  });
}

/** The key that seals secrets: TOOLPORT_SECRET_KEY or the data dir's secret.key. */
describe('the secret key', () => {
  let world: BackendWorld;

  afterEach(async () => {
    expect(await world.teardown()).toEqual([]);
  }, 30_000);

  it('refuses a TOOLPORT_SECRET_KEY that is not 64 hex digits: exit 2 naming it, no stack, the value not echoed', async () => {
    world = new BackendWorld();
    mkdirSync(world.dataDir, { recursive: true, mode: 0o700 });
    const bad = 'my-passphrase-not-a-key';
    const run = await runToolport(['serve', '--data-dir', world.dataDir, '--port', '0'], { env: { TOOLPORT_SECRET_KEY: bad } });
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('TOOLPORT_SECRET_KEY must be 64 hex digits');
    expect(run.stderr).not.toContain(bad);
    expect(run.stderr).not.toMatch(/\n\s+at /);
    expect(existsSync(join(world.dataDir, 'secret.key'))).toBe(false);
  });

  it('makes secret.key (0600) once without TOOLPORT_SECRET_KEY; with it writes none; another key cannot open what the first sealed', async () => {
    world = new BackendWorld();
    const key = randomBytes(32).toString('hex');
    await world.start({ env: { TOOLPORT_SECRET_KEY: key } });
    expect(existsSync(join(world.dataDir, 'secret.key'))).toBe(false);
    expect((await world.install(writeLabeller(join(world.root, 'labeller')))).status).toBe('needs_config');
    expect((await world.api('PUT', '/api/v1/plugins/e2e.labeller/config', { values: { label: 'sealed-label' } })).body.status).toBe('active');
    const agent = await world.agent(await world.session('kanban-task'));
    expect(resultText(await agent.call('kandev_e2e_labeller_label', {}))).toBe('sealed-label');
    await world.closeAgents();
    await world.backend.stop('SIGTERM');

    // The same key again: the configuration opens and the plugin starts.
    await world.start({ env: { TOOLPORT_SECRET_KEY: key } });
    expect((await world.api('GET', '/api/v1/plugins/e2e.labeller')).body.status).toBe('active');
    await world.backend.stop('SIGTERM');

    // Without the variable: a fresh secret.key, which cannot open the old value.
    await world.start();
    expect(statSync(join(world.dataDir, 'secret.key')).mode & 0o777).toBe(0o600);
    const record = (await world.api('GET', '/api/v1/plugins/e2e.labeller')).body;
    expect(record.status).toBe('needs_config');
    expect(record.last_error).toMatch(/cannot be decrypted with this backend's secret key/);
    expect((await world.api('GET', '/api/v1/plugins/e2e.labeller/config')).status).toBe(500);
    // Setting it again under the new key brings it back.
    expect((await world.api('PUT', '/api/v1/plugins/e2e.labeller/config', { values: { label: 'resealed' } })).body.status).toBe('active');
  });
});
