import { z } from 'zod';
import { commonEnv, ConfigError, loadConfig, refuseDevelopmentSecrets } from './config';

const schema = commonEnv
  .extend({ OPS_PORT: z.coerce.number().default(0), SEAL_SECRET: z.string().min(16).default('development-seal-secret') })
  .superRefine(refuseDevelopmentSecrets({ SEAL_SECRET: 'development-seal-secret' }));

describe('refuseDevelopmentSecrets', () => {
  test('lets a local run start on the default', () => {
    expect(loadConfig(schema, {}).SEAL_SECRET).toBe('development-seal-secret');
  });

  test('refuses the default in production, naming the setting, and takes a secret of its own', () => {
    expect(() => loadConfig(schema, { NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadConfig(schema, { NODE_ENV: 'production' })).toThrow('SEAL_SECRET must be set in production');
    expect(() => loadConfig(schema, { NODE_ENV: 'production', SEAL_SECRET: 'development-seal-secret' })).toThrow('SEAL_SECRET');
    expect(loadConfig(schema, { NODE_ENV: 'production', SEAL_SECRET: 'a-secret-of-its-own-0123' }).SEAL_SECRET).toBe('a-secret-of-its-own-0123');
  });
});
