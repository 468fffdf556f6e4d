import { spawnSync } from 'node:child_process';
import { cpSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const root = resolve(__dirname, '..', '..');

/**
 * src/api declares the HTTP API's answers once, for the backend, the CLI and the console: the
 * layer check keeps it readable by all of them (types only, nothing but the domain's types
 * under it) and keeps the domain from knowing it.
 */
describe('the layer rules of src/api', () => {
  let dir: string;
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'toolport-api-layer-'));
    for (const entry of ['src', '.dependency-cruiser.cjs', 'tsconfig.json', 'package.json']) cpSync(join(root, entry), join(dir, entry), { recursive: true });
    symlinkSync(join(root, 'node_modules'), join(dir, 'node_modules'));
  });
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses src/api importing code, the domain importing src/api, and the application or the console taking more than types from it', () => {
    const planted: Array<[file: string, text: string, rule: string]> = [
      ['src/api/planted-code.ts', "export { isSurface } from '../domain/surfaces';\n", 'api-takes-types-of-the-domain'],
      ['src/api/planted-adapter.ts', "import type { ApiClient } from '../adapters/cli/api-client';\nexport type Planted = ApiClient;\n", 'api-stands-alone'],
      ['src/domain/planted-api.ts', "import type { ApiRoute } from '../api';\nexport type Planted = ApiRoute;\n", 'domain-is-pure'],
      ['src/application/planted-api.ts', "import * as api from '../api';\nexport type Planted = api.ApiRoute;\n", 'api-is-types-only'],
      ['src/console/planted-domain.ts', "import type { Surface } from '../domain/surfaces';\nexport type Planted = Surface;\n", 'console-stands-alone'],
    ];
    for (const [file, text] of planted) writeFileSync(join(dir, file), text);
    const result = spawnSync(join(dir, 'node_modules', '.bin', 'depcruise'), ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'err'], {
      cwd: dir,
      encoding: 'utf8',
    });
    expect(result.status).not.toBe(0);
    const reported = (result.stdout + result.stderr).split('\n').filter((line) => line.includes('planted-'));
    expect(reported.map((line) => line.replace(/→.*/, '').trim()).sort()).toEqual(planted.map(([file, , rule]) => `error ${rule}: ${file}`).sort());
  });
});
