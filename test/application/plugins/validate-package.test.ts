import { InMemoryPackageSource } from '../../../src/adapters/memory/in-memory-package-source';
import { ValidatePackage } from '../../../src/application/plugins/validate-package';
import { ToolportError } from '../../../src/domain/errors';
import { manifestFixture } from '../../support/fixtures';

describe('ValidatePackage', () => {
  it('says what a valid package is, with its warnings, and leaves nothing staged', async () => {
    const packages = new InMemoryPackageSource();
    packages.register('/p/two', manifestFixture('acme.two', '1.2.0', ['a', 'b'], { warnings: [{ path: 'description', message: 'short' }] }));
    packages.register('/p/one', manifestFixture('acme.one', '0.1.0', ['a']));
    const validate = new ValidatePackage(packages);
    expect(await validate.execute('/p/two')).toEqual({
      violations: [],
      warnings: [{ path: 'description', message: 'short' }],
      summary: 'acme.two 1.2.0, 2 tools',
    });
    expect((await validate.execute('/p/one')).summary).toBe('acme.one 0.1.0, 1 tool');
    expect(packages.stagedCount()).toBe(0);
  });

  it('answers an invalid package with its violations, and any other refusal as a violation of the package', async () => {
    const packages = new InMemoryPackageSource();
    packages.registerInvalid('/p/bad', [{ path: 'manifest.yaml: id', message: 'must be reverse-DNS' }]);
    const validate = new ValidatePackage(packages);
    expect(await validate.execute('/p/bad')).toEqual({ violations: [{ path: 'manifest.yaml: id', message: 'must be reverse-DNS' }], warnings: [] });
    jest.spyOn(packages, 'stage').mockRejectedValueOnce(new ToolportError('CHECKSUM_MISMATCH', 'package sha256 is 00, expected ff'));
    expect(await validate.execute('/p/big')).toEqual({ violations: [{ path: 'package', message: 'package sha256 is 00, expected ff' }], warnings: [] });
  });

  it('lets an unexpected failure through', async () => {
    const packages = new InMemoryPackageSource();
    jest.spyOn(packages, 'stage').mockRejectedValueOnce(new Error('disk gone'));
    await expect(new ValidatePackage(packages).execute('/p/x')).rejects.toThrow('disk gone');
  });
});
