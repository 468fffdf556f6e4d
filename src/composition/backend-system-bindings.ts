import type { Container } from 'inversify';
import { AjvSchemaCompiler } from '../adapters/ajv/ajv-schema-compiler';
import { UsageError } from '../adapters/cli/exit-codes';
import { AesGcmSecretBox } from '../adapters/system/aes-gcm-secret-box';
import { CryptoIdGenerator } from '../adapters/system/crypto-id-generator';
import { loadSecretKey, SecretKeySettingError } from '../adapters/system/secret-key-file';
import { SystemClock } from '../adapters/system/system-clock';
import { Clock } from '../application/ports/clock';
import { IdGenerator } from '../application/ports/id-generator';
import { SecretBox } from '../application/ports/secret-box';
import { SchemaCompiler } from '../domain/schema-compiler';
import type { ServeContext } from './serve-options';

/**
 * Time, ids, the schema compiler and the box that seals secrets. The key is read first of
 * all, so a bad TOOLPORT_SECRET_KEY or secret.key is a usage error (exit 2) naming it, before
 * anything else starts.
 */
export function systemAdapters({ dataDir, options }: ServeContext): { schemas: SchemaCompiler; bind: (c: Container) => void } {
  const secrets = new AesGcmSecretBox(secretKey(dataDir, options.env));
  // One compiler: the package adapter validates manifests with the same one the core uses.
  const schemas = new AjvSchemaCompiler();
  const bind = (c: Container) => {
    c.bind(Clock).toResolvedValue(() => new SystemClock());
    c.bind(IdGenerator).toResolvedValue(() => new CryptoIdGenerator());
    c.bind(SchemaCompiler).toConstantValue(schemas);
    c.bind(SecretBox).toConstantValue(secrets);
  };
  return { schemas, bind };
}

function secretKey(dataDir: string, env: NodeJS.ProcessEnv): Buffer {
  try {
    return loadSecretKey(dataDir, env);
  } catch (error) {
    if (error instanceof SecretKeySettingError) throw new UsageError(error.message);
    throw error;
  }
}
