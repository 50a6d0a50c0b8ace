// The worker in-process against a test environment, made as the process makes it (createWorker),
// with the jobs a test exercises.
import type { Logger } from '#common/logger.js';
import { inject } from 'vitest';
import { runLogger } from './run-logs.js';
import { createWorker } from '../../worker/src/start.js';
import type { TestEnvironment } from './environment.js';

export async function startWorker(
  env: TestEnvironment,
  options: {
    legacyUrl?: string;
    /**
     * SYNC_INTERVAL_MS's default unless a test times the sync's pace: an idle worker costs its
     * process 0.24 cores at 200 ms and 0.08 at 1,000 (a job per table per pass), on a suite bound
     * by two cores' CPU.
     */
    intervalMs?: number;
    reconcileIntervalMs?: number;
    /** Operator variables for this worker (CHANGES_RETENTION_DAYS...). */
    settings?: Record<string, string>;
  } = {},
) {
  const intervals = {
    ...(options.intervalMs ? { SYNC_INTERVAL_MS: String(options.intervalMs) } : {}),
    ...(options.reconcileIntervalMs
      ? { RECONCILE_INTERVAL_MS: String(options.reconcileIntervalMs) }
      : {}),
  };
  const worker = await createWorker(env.config({ ...intervals, ...options.settings }), {
    logger: runLogger(inject('services').runId, 'worker-test'),
    jobs: ['sync'],
    legacyUrl: options.legacyUrl ?? env.legacyReadOnlyUrl,
    poolSize: 4,
  });
  return { ...worker, runner: worker.runner! };
}

/** The worker's webhook part (dispatch, delivery, sweep) in-process, as the process starts it. */
export async function startWebhookWorker(
  env: TestEnvironment,
  overrides: Record<string, string>,
  options: { dnsServers?: string[]; logger?: Logger } = {},
) {
  const worker = await createWorker(env.config(overrides), {
    logger: options.logger ?? runLogger(inject('services').runId, 'webhooks-test'),
    jobs: ['webhooks'],
    poolSize: 6,
    ...(options.dnsServers ? { dnsServers: options.dnsServers } : {}),
  });
  return { ...worker, deliveryWorker: worker.webhooks!.deliveryWorker };
}
