// One isolated environment per test file, on the servers global-setup.ts chose.
import { inject } from 'vitest';
import {
  createThrowawayEnvironment,
  type ThrowawayEnvironment,
} from '../../scripts/throwaway-environment.js';

export type TestEnvironment = ThrowawayEnvironment;

/**
 * The tests' own SECRETS_KEY (32 bytes, base64), set explicitly rather than left to the
 * development default: tests that forge or check cursors sign with it (test/support/cursors.ts).
 */
export const TEST_SECRETS_KEY = Buffer.from('test-suite secrets key, 32 bytes').toString('base64');

export async function createTestEnvironment(): Promise<TestEnvironment> {
  const services = inject('services');
  const env = await createThrowawayEnvironment(services, `t_${services.runId}`);
  return {
    ...env,
    config: (overrides = {}) => env.config({ SECRETS_KEY: TEST_SECRETS_KEY, ...overrides }),
  };
}
