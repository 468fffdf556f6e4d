import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { AjvSchemaCompiler } from '../../../src/adapters/ajv/ajv-schema-compiler';
import { FsPackageSource } from '../../../src/adapters/package/fs-package-source';
import { describePackageSourceContract, type PackagesFactory } from '../../contracts/package-source.contract';
import { writePackageDir } from './package-fixtures';

const schemas = new AjvSchemaCompiler();

/** FsPackageSource over a fresh data dir in a temp folder, with its packages beside it. */
const factory: PackagesFactory = () => {
  const base = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-pkg-contract-'));
  const dataDir = path.join(base, 'data');
  const source = new FsPackageSource(dataDir, schemas, '0.1.0');
  const installed = (id: string, version: string, file: string) => path.join(dataDir, 'plugins', id, version, file);
  let written = 0;
  return {
    source,
    async writePackage(id, version, marker = `${id} ${version}`) {
      const dir = writePackageDir(path.join(base, `package-${++written}`), id, version);
      fs.writeFileSync(path.join(dir, 'README.md'), marker);
      return dir;
    },
    async writeInvalid() {
      const dir = path.join(base, 'invalid');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'README.md'), 'no manifest here');
      return dir;
    },
    async readInstalled(id, version, file) {
      return fs.existsSync(installed(id, version, file)) ? fs.readFileSync(installed(id, version, file), 'utf8') : undefined;
    },
    async writeInstalled(id, version, file, content) {
      if (content === undefined) fs.rmSync(installed(id, version, file));
      else fs.writeFileSync(installed(id, version, file), content);
    },
    hasDataDir: async (id) => fs.existsSync(path.join(dataDir, 'plugin-data', id)),
    cleanup: () => fs.rmSync(base, { recursive: true, force: true }),
  };
};

describePackageSourceContract([['FsPackageSource', factory]]);
