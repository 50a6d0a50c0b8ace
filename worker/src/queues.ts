// Queue and job names, payloads and default options: declared once, here.
import type { JobsOptions } from 'bullmq';

/** One queue per synced table, so a table's runs can be limited to one at a time. */
export const syncQueueName = (table: string) => `sync-${table}`;
export const syncSchedulerId = (table: string) => `sync-${table}-every-interval`;
export const SYNC_JOB_NAME = 'sync-table';

export interface SyncJobData {
  table: string;
}

export const SYNC_JOB_OPTIONS: JobsOptions = {
  attempts: 5,
  backoff: { type: 'exponential', delay: 1000 },
  // Keep recent history visible for operators; failed jobs longer than completed ones.
  removeOnComplete: { count: 100 },
  removeOnFail: { count: 1000 },
};
