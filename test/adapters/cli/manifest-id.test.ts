import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { readManifestId } from '../../../src/adapters/cli/manifest-id';
import { UsageError } from '../../../src/adapters/cli/exit-codes';
import { makeZip } from '../../support/packages/zip-writer';

/** `plugin upgrade` addresses the plugin its package names; for an MCP Bundle, the id its name makes. */
describe('readManifestId', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-manifest-id-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  function bundle(manifest: unknown): string {
    const file = path.join(dir, 'server.mcpb');
    fs.writeFileSync(
      file,
      makeZip([
        { name: 'server/index.js', data: '' },
        { name: 'manifest.json', data: JSON.stringify(manifest) },
      ]),
    );
    return file;
  }

  it("answers the id a bundle's name makes", async () => {
    expect(await readManifestId(bundle({ manifest_version: '0.3', name: 'My Files Server' }))).toBe('my-files-server');
  });

  it('answers a folder package’s manifest id as before', async () => {
    fs.writeFileSync(path.join(dir, 'manifest.yaml'), 'api_version: 1\nid: acme.hello\nversion: 1.0.0\n');
    expect(await readManifestId(dir)).toBe('acme.hello');
  });

  it('is a usage error naming --id when the name makes no id, and when there is no manifest.json', async () => {
    await expect(readManifestId(bundle({ name: '!!!' }))).rejects.toThrow(/--id/);
    const empty = path.join(dir, 'empty.mcpb');
    fs.writeFileSync(empty, makeZip([{ name: 'a.txt', data: 'x' }]));
    await expect(readManifestId(empty)).rejects.toBeInstanceOf(UsageError);
    await expect(readManifestId(empty)).rejects.toThrow(/no manifest.json/);
  });
});
