import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { FsPackageSource } from '../../../src/adapters/package/fs-package-source';
import { packageLimits } from '../../../src/adapters/package/package-limits';
import { InvalidPackageError } from '../../../src/domain/errors';
import type { JsonObject } from '../../../src/domain/json';
import { makeZip, type ZipEntrySpec } from '../../support/packages/zip-writer';
import { listTree } from './package-fixtures';

const schemas = new AjvSchemaCompiler();

function bundleJson(overrides: JsonObject = {}): string {
  return JSON.stringify({
    manifest_version: '0.3',
    name: 'Zip Server',
    version: '1.2.3',
    description: 'A bundled server',
    author: { name: 'A' },
    server: { type: 'binary', entry_point: 'server/run', mcp_config: { command: '${__dirname}/server/run', args: ['--root', '${user_config.root}'] } },
    user_config: { root: { type: 'directory', title: 'Root', description: 'The folder', required: true } },
    ...overrides,
  });
}

const good: ZipEntrySpec[] = [
  { name: 'manifest.json', data: bundleJson() },
  { name: 'server/', mode: 0o040755 },
  { name: 'server/run', data: '#!/bin/sh\nexit 0\n', mode: 0o100755 },
  // Only the permission bits, as the MCPB CLI writes them.
  { name: 'server/data.txt', data: 'x'.repeat(1000), mode: 0o640 },
];

describe('FsPackageSource: MCP Bundles', () => {
  let base: string;
  let dataDir: string;
  let source: FsPackageSource;

  beforeEach(() => {
    base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-mcpb-'));
    dataDir = path.join(base, 'data');
    source = new FsPackageSource(dataDir, schemas, '0.1.0');
  });
  afterEach(() => fs.rmSync(base, { recursive: true, force: true }));

  function writeBundle(entries: ZipEntrySpec[], name = 'server.mcpb'): string {
    const file = path.join(base, name);
    fs.writeFileSync(file, makeZip(entries));
    return file;
  }

  async function refusal(file: string, using = source): Promise<InvalidPackageError> {
    const error = await using.stage(file, undefined, { grants: ['write_paths'] }).then(
      () => undefined,
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(InvalidPackageError);
    if (fs.existsSync(dataDir)) expect(listTree(dataDir).filter((p) => p !== 'tmp')).toEqual([]);
    return error as InvalidPackageError;
  }

  it('stages a bundle as the mcp-stdio plugin it maps to, with the .mcpb file as its sha256', async () => {
    const file = writeBundle(good);
    const staged = await source.stage(file, undefined, { grants: ['write_paths'] });
    expect(staged.sha256).toBe(createHash('sha256').update(fs.readFileSync(file)).digest('hex'));
    expect(staged.manifest).toMatchObject({
      id: 'zip-server',
      version: '1.2.3',
      display_name: 'Zip Server',
      runtime: { type: 'mcp-stdio', command: 'server/run', args: ['--root', '${config.root}'] },
      permissions: { network: false, read_paths: [], write_paths: ['${config.root}'], env: [] },
    });
    const installed = await source.commit(staged);
    expect(fs.statSync(path.join(installed.installDir, 'server/run')).mode & 0o777).toBe(0o755);
    expect(fs.statSync(path.join(installed.installDir, 'server/data.txt')).mode & 0o777).toBe(0o640);
    expect(fs.readFileSync(path.join(installed.installDir, 'manifest.json'), 'utf8')).toBe(bundleJson());
    expect(installed.executable).toBe(path.join(installed.installDir, 'server/run'));
  });

  it('--id names the plugin, and the sha256 check applies', async () => {
    const file = writeBundle(good);
    expect((await source.stage(file, undefined, { id: 'chosen' })).manifest.id).toBe('chosen');
    await expect(source.stage(file, '0'.repeat(64))).rejects.toMatchObject({ code: 'CHECKSUM_MISMATCH' });
  });

  it('what it packs for other replicas stages again as the same plugin', async () => {
    const staged = await source.stage(writeBundle(good), undefined, { grants: ['read_paths'] });
    const tgz = await source.tarball(staged);
    await source.discard(staged);
    const other = new FsPackageSource(path.join(base, 'other'), schemas, '0.1.0');
    const again = await other.stageTarball(tgz);
    expect(again.manifest).toEqual(staged.manifest);
    await other.discard(again);
  });

  it('refuses a symbolic link', async () => {
    const error = await refusal(writeBundle([...good, { name: 'server/link', data: '/etc/passwd', mode: 0o120777 }]));
    expect(error.violations).toEqual([{ path: 'server/link', message: expect.stringContaining('symbolic links') }]);
  });

  it.each([
    ['../escaped.txt', /\.\./],
    ['server/../../escaped.txt', /\.\./],
    ['/tmp/escaped.txt', /absolute/],
  ])('refuses the entry "%s"', async (name, message) => {
    const error = await refusal(writeBundle([...good, { name, data: 'out' }]));
    expect(error.violations).toEqual([{ path: name, message: expect.stringMatching(message) }]);
    expect(fs.existsSync(path.join(base, 'escaped.txt'))).toBe(false);
  });

  it('refuses a name given twice, and a file that other entries lie inside', async () => {
    expect((await refusal(writeBundle([...good, { name: 'server/run', data: 'again' }]))).violations).toEqual([
      { path: 'server/run', message: expect.stringContaining('twice') },
    ]);
    expect((await refusal(writeBundle([...good, { name: 'server/run/inner', data: 'x' }]))).violations).toEqual([
      { path: 'server/run/inner', message: expect.stringContaining('is a file') },
    ]);
  });

  it('refuses a file named like a folder that earlier entries lie in', async () => {
    expect((await refusal(writeBundle([{ name: 'lib/inner.js', data: 'x' }, { name: 'lib', data: 'y' }, ...good]))).violations).toEqual([
      { path: 'lib', message: expect.stringContaining('other entries are inside it') },
    ]);
  });

  it('refuses an encrypted entry and a compression other than stored or deflate', async () => {
    expect((await refusal(writeBundle([...good, { name: 'secret.bin', data: 'x', flags: 1 }]))).violations).toEqual([
      { path: 'secret.bin', message: expect.stringContaining('encrypted') },
    ]);
    expect((await refusal(writeBundle([...good, { name: 'packed.bz2', data: 'x', method: 12 }]))).violations).toEqual([
      { path: 'packed.bz2', message: expect.stringContaining('compression method 12') },
    ]);
  });

  it('stops at the entry limit and the unpacked size while reading the archive', async () => {
    const few = new FsPackageSource(dataDir, schemas, '0.1.0', { limits: packageLimits({ manifestBytes: 65536, unpackedBytes: 1 << 20, entries: 3 }) });
    expect((await refusal(writeBundle(good), few)).violations).toEqual([{ path: '(package)', message: expect.stringContaining('more than 3 entries') }]);
    const small = new FsPackageSource(dataDir, schemas, '0.1.0', { limits: packageLimits({ manifestBytes: 65536, unpackedBytes: 1200, entries: 100 }) });
    expect((await refusal(writeBundle(good), small)).violations).toEqual([{ path: '(package)', message: expect.stringContaining('larger than 1200 bytes') }]);
  });

  it('refuses an entry that inflates past the size it declares', async () => {
    const lying = [...good, { name: 'server/bomb', data: Buffer.alloc(100_000), declaredSize: 10 }];
    const error = await refusal(writeBundle(lying));
    expect(error.violations).toEqual([{ path: 'server/bomb', message: expect.stringMatching(/cannot be unpacked|inflates/) }]);
  });

  it('names the manifest.json field of a mapped manifest that breaks a rule', async () => {
    const missing = good.filter((entry) => entry.name !== 'server/run');
    expect((await refusal(writeBundle(missing))).violations).toEqual([{ path: 'server.mcp_config.command', message: expect.stringContaining('not a file') }]);
    const home = [{ name: 'manifest.json', data: bundleJson({ server: { type: 'node', mcp_config: { command: 'node', args: ['${HOME}/x.js'] } } }) }];
    expect((await refusal(writeBundle(home))).violations).toEqual([{ path: 'server.mcp_config.args[0]', message: expect.stringContaining('desktop') }]);
  });

  it('refuses a bundle without manifest.json, one that is not JSON, and one holding manifest.yaml', async () => {
    expect((await refusal(writeBundle(good.slice(1)))).violations).toEqual([{ path: 'manifest.json', message: expect.stringContaining('missing') }]);
    expect((await refusal(writeBundle([{ name: 'manifest.json', data: '{' }]))).violations).toEqual([
      { path: 'manifest.json', message: expect.stringContaining('not valid JSON') },
    ]);
    expect((await refusal(writeBundle([...good, { name: 'manifest.yaml', data: 'id: x' }]))).violations).toEqual([
      { path: 'manifest.yaml', message: expect.stringContaining('must not hold') },
    ]);
  });

  it('refuses a file that is not a zip after all', async () => {
    const file = path.join(base, 'broken.mcpb');
    fs.writeFileSync(file, Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100)]));
    expect((await refusal(file)).violations).toEqual([{ path: '(package)', message: expect.stringContaining('not a valid zip') }]);
  });
});
