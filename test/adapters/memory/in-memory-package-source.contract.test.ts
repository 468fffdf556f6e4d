import { InMemoryPackageSource } from '../../../src/adapters/memory/in-memory-package-source';
import { describePackageSourceContract, type PackagesFactory } from '../../contracts/package-source.contract';
import { manifestFixture } from '../../support/fixtures';

const factory: PackagesFactory = () => {
  const source = new InMemoryPackageSource();
  let written = 0;
  return {
    source,
    async writePackage(id, version, marker = `${id} ${version}`) {
      const path = `/packages/${++written}/${id}-${version}`;
      source.register(path, manifestFixture(id, version, ['run']), undefined, {
        'manifest.yaml': `id: ${id}\nversion: ${version}\n`,
        'bin/plugin': '#!/bin/sh\n',
        'README.md': marker,
      });
      return path;
    },
    async writeInvalid() {
      source.registerInvalid('/packages/invalid', [{ path: 'manifest.yaml', message: 'no manifest.yaml at the package root' }]);
      return '/packages/invalid';
    },
    readInstalled: async (id, version, file) => source.installedFile(id, version, file),
    writeInstalled: async (id, version, file, content) => source.writeInstalledFile(id, version, file, content),
    hasDataDir: async (id) => source.hasDataDir(id),
    cleanup() {},
  };
};

describePackageSourceContract([['InMemoryPackageSource', factory]]);
