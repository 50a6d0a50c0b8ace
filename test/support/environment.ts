// One isolated environment per test file, on the servers global-setup.ts chose.
import { inject } from 'vitest';
import {
  createThrowawayEnvironment,
  type ThrowawayEnvironment,
} from '../../scripts/throwaway-environment.js';

export type TestEnvironment = ThrowawayEnvironment;

export function createTestEnvironment(): Promise<TestEnvironment> {
  const services = inject('services');
  return createThrowawayEnvironment(services, `t_${services.runId}`);
}
