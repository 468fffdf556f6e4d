import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import fc from 'fast-check';
import { SecretUnreadableError } from '../../../src/application/ports/secret-box';
import { AesGcmSecretBox, secretKeyId } from '../../../src/adapters/system/aes-gcm-secret-box';
import { loadSecretKey, SecretKeySettingError } from '../../../src/adapters/system/secret-key-file';

describe('AesGcmSecretBox', () => {
  const key = randomBytes(32);
  const box = new AesGcmSecretBox(key);

  it('opens what it sealed, for any text, and never shows the text in the sealed form (property)', () => {
    fc.assert(
      fc.property(fc.string({ minLength: 4 }), fc.string(), (secret, context) => {
        const sealed = box.seal(secret, context);
        expect(sealed.keyId).toBe(secretKeyId(key));
        expect(sealed.data).not.toContain(secret);
        expect(sealed.data).not.toContain(Buffer.from(secret).toString('base64'));
        expect(box.open(sealed, context)).toBe(secret);
      }),
    );
  });

  it('uses a fresh nonce each time: the same secret seals differently', () => {
    expect(box.seal('same', 'c').data).not.toBe(box.seal('same', 'c').data);
  });

  it('refuses another context, a changed value and an unknown key id', () => {
    const sealed = box.seal('token', 'config:a');
    expect(() => box.open(sealed, 'config:b')).toThrow(SecretUnreadableError);
    const flipped = Buffer.from(sealed.data.slice(3), 'base64');
    flipped[flipped.length - 1] ^= 1;
    expect(() => box.open({ ...sealed, data: `v1.${flipped.toString('base64')}` }, 'config:a')).toThrow(SecretUnreadableError);
    expect(() => new AesGcmSecretBox(randomBytes(32)).open(sealed, 'config:a')).toThrow(/key this backend does not have/);
  });

  it('opens values sealed by an older key it was given (rotation)', () => {
    const sealed = box.seal('kept', 'c');
    const rotated = new AesGcmSecretBox(randomBytes(32), [key]);
    expect(rotated.open(sealed, 'c')).toBe('kept');
    expect(rotated.seal('new', 'c').keyId).not.toBe(sealed.keyId);
  });
});

describe('loadSecretKey', () => {
  let dir: string;
  beforeEach(() => (dir = fs.mkdtempSync(path.join(os.tmpdir(), 'toolport-key-'))));
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  it('takes TOOLPORT_SECRET_KEY when it is 64 hex digits, and writes no file then', () => {
    const hex = randomBytes(32).toString('hex');
    expect(loadSecretKey(dir, { TOOLPORT_SECRET_KEY: hex }).toString('hex')).toBe(hex);
    expect(fs.existsSync(path.join(dir, 'secret.key'))).toBe(false);
  });

  it('refuses a bad TOOLPORT_SECRET_KEY, naming it and not echoing it', () => {
    const bad = 'not-a-key-but-a-password';
    expect(() => loadSecretKey(dir, { TOOLPORT_SECRET_KEY: bad })).toThrow(SecretKeySettingError);
    expect(() => loadSecretKey(dir, { TOOLPORT_SECRET_KEY: bad })).toThrow(/TOOLPORT_SECRET_KEY must be 64 hex digits/);
    expect(() => loadSecretKey(dir, { TOOLPORT_SECRET_KEY: bad })).not.toThrow(new RegExp(bad));
  });

  it('makes <data-dir>/secret.key once with mode 0600 and reads the same key later', () => {
    const first = loadSecretKey(dir, {});
    const file = path.join(dir, 'secret.key');
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
    expect(loadSecretKey(dir, {}).equals(first)).toBe(true);
    fs.chmodSync(file, 0o644);
    expect(loadSecretKey(dir, {}).equals(first)).toBe(true);
    expect(fs.statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a damaged secret.key rather than replacing it', () => {
    fs.writeFileSync(path.join(dir, 'secret.key'), 'garbage\n', { mode: 0o600 });
    expect(() => loadSecretKey(dir, {})).toThrow(/secret\.key must hold 64 hex digits/);
    expect(fs.readFileSync(path.join(dir, 'secret.key'), 'utf8')).toBe('garbage\n');
  });
});
