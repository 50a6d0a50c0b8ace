// What the parts of delivery (delivery.ts and this folder) share: the process's dependencies and
// state, the event a try sends as it is read back, and a try waiting to be queued.
import type { ToldErasure } from '#api/changes/erasures.js';
import type { RecipientsRecorder } from '#api/recipients.js';
import type { Queue } from 'bullmq';
import type { RedisClient } from '#common/redis.js';
import type pg from 'pg';
import type { throttledLog } from '#common/log-throttle.js';
import type pLimit from 'p-limit';
import type { WebhookSecrets } from '#api/webhooks/secrets.js';
import type { Sender } from '#api/webhooks/send.js';
import type { DeliverJobData } from '../../queues.js';
import type { Shares } from '../shares.js';
import type { WebhookMetrics } from '../webhook-metrics.js';

export interface DeliveryDeps {
  pool: pg.Pool;
  connection: RedisClient;
  prefix: string;
  sender: Sender;
  retryScheduleMs: readonly number[];
  concurrency: number;
  /** Tries of one subscription in flight at once until its endpoint answers (shares.ts). */
  subscriptionConcurrency: number;
  /** A silent subscription's first back-off (WEBHOOK_BACK_OFF_MS, shares.ts). */
  backOffMs: number;
  /** The bound on one try (WEBHOOK_TIMEOUT_MS): a subscription's probe is answered by then. */
  timeoutMs: number;
  metrics: WebhookMetrics;
  log: ReturnType<typeof throttledLog>;
  /** Opens the stored secrets (SECRETS_KEY). */
  secrets: WebhookSecrets;
}

/** What a delivering process works with: its dependencies, its queue, its shares, its tries. */
export interface Deliverer extends DeliveryDeps {
  queue: Queue<DeliverJobData>;
  /** The process's tries in flight, whoever they are for; each subscription's share comes first. */
  sending: ReturnType<typeof pLimit>;
  shares: Shares;
  /**
   * Events whose try this process is making or has in a line: a sweep's copy of one (queued while
   * it waits its turn) is dropped here rather than sent twice.
   */
  taken: Set<string>;
  recipients: RecipientsRecorder;
}

/** An event to try, with its subscription and client as they are now (due.ts reads it). */
export interface EventToSend {
  id: string;
  message_id: string;
  event_type: string;
  row_branch_id: number | null;
  body: string;
  status: string;
  attempts: number;
  changed_at: Date;
  subscription_id: number;
  client_id: number;
  url: string;
  enabled: boolean;
  /** Whether the credentials the subscription stands on live (api/webhooks/credentials.ts). */
  credentials_live: boolean;
  secret: string;
  previous_secret: string | null;
  previous_secret_until: Date | null;
  failing_since: Date | null;
  client: {
    is_active: boolean;
    scopes: string[];
    branch_id: number | null;
    data_classes: string[];
    /** A sandbox client's (api/sandbox.ts): its members are generated, no one's data. */
    sandbox: boolean;
  };
  /** The member write whose change this is, when it was traced (dispatch.ts). */
  trace_parent: string | null;
  /** An erased member's deletion, to a client that received the member: sent as an erasure. */
  erasure: ToldErasure | null;
}

/** A try to queue: a retry after `delayMs`; a try turned away by its share for `waitUntil`. */
export interface QueuedTry {
  id: string;
  attempt: number;
  delayMs?: number;
  waitUntil?: number;
}
