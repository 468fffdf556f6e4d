import { existsSync, mkdirSync, mkdtempSync, readdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { StartLeftovers } from '../../../src/adapters/shared/start-leftovers';

describe('StartLeftovers: a failed serve takes back what it wrote', () => {
  let root: string;
  beforeEach(() => {
    root = mkdtempSync(join(tmpdir(), 'toolport-leftovers-'));
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('removes a data dir it created, with the folders above it it created', () => {
    const dataDir = join(root, 'state', 'toolport');
    const leftovers = StartLeftovers.before(dataDir);
    mkdirSync(dataDir, { recursive: true });
    writeFileSync(join(dataDir, 'admin.token'), 'x');
    leftovers.removeCreated();
    expect(existsSync(join(root, 'state'))).toBe(false);
    expect(existsSync(root)).toBe(true);
  });

  it('in an existing data dir removes only the entries it added', () => {
    const dataDir = join(root, '.toolport');
    mkdirSync(join(dataDir, 'plugins'), { recursive: true });
    writeFileSync(join(dataDir, 'admin.token'), 'kept');
    const leftovers = StartLeftovers.before(dataDir);
    writeFileSync(join(dataDir, 'secret.key'), 'new');
    writeFileSync(join(dataDir, 'toolport.db'), 'new');
    mkdirSync(join(dataDir, 'logs'));
    writeFileSync(join(dataDir, 'plugins', 'inside-an-old-folder'), 'kept');
    leftovers.removeCreated();
    expect(readdirSync(dataDir).sort()).toEqual(['admin.token', 'plugins']);
    expect(readdirSync(join(dataDir, 'plugins'))).toEqual(['inside-an-old-folder']);
  });

  it('keeps a plugin folder a failed start filled with what was there before (moved between layouts), and removes one it only made', () => {
    const dataDir = join(root, '.toolport');
    mkdirSync(join(dataDir, 'plugins', 'p', '1.0.0'), { recursive: true });
    writeFileSync(join(dataDir, 'plugins', 'p', '1.0.0', 'main.js'), 'installed');
    const leftovers = StartLeftovers.before(dataDir, ['plugin-root', 'plugins', 'plugin-data']);
    // The start moves the plugin folders under plugin-root/ and makes an empty plugin-data/ there, then fails.
    mkdirSync(join(dataDir, 'plugin-root', 'plugin-data'), { recursive: true });
    renameSync(join(dataDir, 'plugins'), join(dataDir, 'plugin-root', 'plugins'));
    mkdirSync(join(dataDir, 'plugin-data'));
    leftovers.removeCreated();
    expect(readdirSync(dataDir)).toEqual(['plugin-root']);
    expect(existsSync(join(dataDir, 'plugin-root', 'plugins', 'p', '1.0.0', 'main.js'))).toBe(true);
  });
});
