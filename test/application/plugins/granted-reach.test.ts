import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, mkdtempSync, realpathSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FsHostPaths } from '../../../src/adapters/system/fs-host-paths';
import { AesGcmSecretBox } from '../../../src/adapters/system/aes-gcm-secret-box';
import { GrantedReach, type ReachTarget } from '../../../src/application/plugins/granted-reach';
import { sealConfiguration } from '../../../src/application/plugins/plugin-configuration';
import type { PluginPermissions } from '../../../src/domain/permissions';
import { manifestFixture } from '../../support/fixtures';

/** What one start may reach, resolved on a real disk (docs/lifecycle.md, "Permissions and grants"). */
describe('GrantedReach', () => {
  const box = new AesGcmSecretBox(randomBytes(32));
  let root: string;
  let dataDir: string;
  let outside: string;
  let reach: GrantedReach;
  let target: (asked: Partial<PluginPermissions>, script?: string) => ReachTarget;

  beforeEach(() => {
    root = realpathSync(mkdtempSync(join(tmpdir(), 'toolport-reach-')));
    dataDir = join(root, 'data');
    outside = join(root, 'outside');
    const installDir = join(dataDir, 'plugins', 'acme.files', '1.0.0');
    const pluginData = join(dataDir, 'plugin-data', 'acme.files');
    for (const folder of [installDir, pluginData, join(dataDir, 'plugin-data', 'acme.other'), join(outside, 'docs'), join(outside, 'bin')])
      mkdirSync(folder, { recursive: true });
    writeFileSync(join(dataDir, 'secret.key'), 'k');
    reach = new GrantedReach(new FsHostPaths(dataDir, { PATH: `${join(outside, 'bin')}:/usr/bin:/bin` }, '/usr/bin/true'), box);
    target = (asked, script = '#!/bin/sh\n') => {
      const executable = join(installDir, 'plugin');
      writeFileSync(executable, script, { mode: 0o755 });
      const permissions = { network: false, read_paths: [], write_paths: [], env: [], ...asked };
      return { manifest: manifestFixture('acme.files', '1.0.0', ['run'], { permissions }), installDir, executable, dataDir: pluginData };
    };
  });
  afterEach(() => rmSync(root, { recursive: true, force: true }));

  it('answers nothing beyond its own folders for a plugin that asks for nothing', async () => {
    await expect(reach.resolve(target({}), null)).resolves.toEqual({ network: false, readPaths: [], writePaths: [], env: [] });
  });

  it('substitutes ${package}, ${data_dir} and ${config.KEY}, answering the realpaths it checked', async () => {
    mkdirSync(join(dataDir, 'plugin-data', 'acme.files', 'cache'));
    symlinkSync(join(outside, 'docs'), join(outside, 'docs-link'));
    const asked = { network: true, read_paths: ['${package}', '${config.root}/docs-link'], write_paths: ['${data_dir}/cache'], env: ['HTTPS_PROXY'] };
    const config = sealConfiguration(box, 'acme.files', { root: outside });

    await expect(reach.resolve(target(asked), config)).resolves.toEqual({
      network: true,
      readPaths: [join(dataDir, 'plugins', 'acme.files', '1.0.0'), join(outside, 'docs')],
      writePaths: [join(dataDir, 'plugin-data', 'acme.files', 'cache')],
      env: ['HTTPS_PROXY'],
    });
  });

  it("grants one path per element of a list value that is a whole path (an MCP Bundle's multiple directories)", async () => {
    mkdirSync(join(outside, 'more'));
    const config = sealConfiguration(box, 'acme.files', { dirs: [join(outside, 'docs'), join(outside, 'more')] });
    await expect(reach.resolve(target({ write_paths: ['${config.dirs}'] }), config)).resolves.toMatchObject({
      writePaths: [join(outside, 'docs'), join(outside, 'more')],
    });
    const missing = sealConfiguration(box, 'acme.files', { dirs: [join(outside, 'docs'), join(outside, 'nowhere')] });
    await expect(reach.resolve(target({ write_paths: ['${config.dirs}'] }), missing)).rejects.toThrow(/nowhere does not exist/);
  });

  it('fails the start naming a path that does not exist, and creates nothing', async () => {
    const missing = join(outside, 'nowhere');
    await expect(reach.resolve(target({ write_paths: [missing] }), null)).rejects.toMatchObject({
      code: 'PLUGIN_START_FAILED',
      message: expect.stringContaining(`permissions.write_paths[0]: ${missing} does not exist`),
    });
  });

  it('fails the start for a ${config.KEY} with no value', async () => {
    await expect(reach.resolve(target({ read_paths: ['${config.root}'] }), null)).rejects.toThrow(/\$\{config\.root\}, which has no value/);
  });

  it("refuses the backend data dir, another plugin's data, and a folder that holds the data dir", async () => {
    for (const path of [join(dataDir, 'secret.key'), join(dataDir, 'plugin-data', 'acme.other'), root]) {
      await expect(reach.resolve(target({ read_paths: [path] }), null)).rejects.toMatchObject({
        code: 'PLUGIN_START_FAILED',
        message: expect.stringContaining(path),
      });
    }
  });

  it('refuses a write path into its own version folder, which it may only read', async () => {
    await expect(reach.resolve(target({ write_paths: ['${package}'] }), null)).rejects.toThrow(/outside the plugin's own data dir/);
  });

  it('refuses a path reached through a link the plugin could plant in its data dir, or in a granted write path', async () => {
    symlinkSync(join(outside, 'docs'), join(dataDir, 'plugin-data', 'acme.files', 'to-docs'));
    await expect(reach.resolve(target({ read_paths: ['${data_dir}/to-docs'] }), null)).rejects.toThrow(/through a symbolic link in .*plugin-data\/acme\.files/);

    mkdirSync(join(outside, 'out'));
    symlinkSync(join(outside, 'docs'), join(outside, 'out', 'to-docs'));
    await expect(reach.resolve(target({ write_paths: [join(outside, 'out')], read_paths: [join(outside, 'out', 'to-docs')] }), null)).rejects.toThrow(
      /permissions\.read_paths\[0\].*symbolic link in .*outside\/out/,
    );
  });

  it('refuses a path reached through a link in a world-writable folder', async () => {
    const shared = join(outside, 'shared');
    mkdirSync(shared);
    chmodSync(shared, 0o1777);
    symlinkSync(join(outside, 'docs'), join(shared, 'docs'));
    await expect(reach.resolve(target({ read_paths: [join(shared, 'docs')] }), null)).rejects.toThrow(/any user/);
  });

  describe('interpreters', () => {
    it('needs nothing for one in the system directories', async () => {
      await expect(reach.resolve(target({}, '#!/usr/bin/env sh\n'), null)).resolves.toMatchObject({ readPaths: [] });
    });

    it('fails the start for one outside them that no read path covers, naming it', async () => {
      const interpreter = join(outside, 'bin', 'runner');
      writeFileSync(interpreter, '#!/bin/sh\n', { mode: 0o755 });
      await expect(reach.resolve(target({}, '#!/usr/bin/env runner\n'), null)).rejects.toMatchObject({
        code: 'PLUGIN_START_FAILED',
        message: expect.stringContaining(`its interpreter ${interpreter}`),
      });
      expect(await reach.interpreterWarnings(target({}, '#!/usr/bin/env runner\n'))).toEqual([
        { path: 'permissions.read_paths', message: expect.stringContaining(interpreter) },
      ]);
    });

    it('accepts one a read path covers, and answers it among the read paths', async () => {
      writeFileSync(join(outside, 'bin', 'runner'), '#!/bin/sh\n', { mode: 0o755 });
      const granted = target({ read_paths: [join(outside, 'bin')] }, `#!${join(outside, 'bin', 'runner')}\n`);
      await expect(reach.resolve(granted, null)).resolves.toMatchObject({ readPaths: [join(outside, 'bin')] });
      expect(await reach.interpreterWarnings(granted)).toEqual([]);
    });

    it("adds the folder of the backend's own node read-only", async () => {
      const node = join(outside, 'bin', 'node');
      writeFileSync(node, '', { mode: 0o755 });
      const own = new GrantedReach(new FsHostPaths(dataDir, { PATH: join(outside, 'bin') }, node), box);
      await expect(own.resolve(target({}, '#!/usr/bin/env node\n'), null)).resolves.toMatchObject({ readPaths: [join(outside, 'bin')] });
    });

    it('fails the start when env names one that is not on the PATH', async () => {
      await expect(reach.resolve(target({}, '#!/usr/bin/env no-such-runner\n'), null)).rejects.toThrow(/"no-such-runner" .* is not on the PATH/);
    });
  });
});
