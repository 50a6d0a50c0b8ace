// The member write audit does not grow with time: the worker deletes records older than
// AUDIT_RETENTION_DAYS (here five minutes) and keeps every younger one.
import { describe, expect } from 'vitest';
import { readModelPool } from '#common/databases.js';
import { purgeExpired } from '../../worker/src/retention.js';
import { gatewayTest } from '../support/fixtures.js';

const it = gatewayTest();

const minutesAgo = (minutes: number) => new Date(Date.now() - minutes * 60_000);

describe('audit retention', () => {
  it('when records pass AUDIT_RETENTION_DAYS, then the worker deletes them and keeps the younger ones', async ({
    env,
    gateway,
  }) => {
    const record = (at: Date, requestId: string) => ({
      at,
      client_id: 1,
      client_key: 'ck_audit',
      request_id: requestId,
      operation: 'update',
      member_id: 7,
      status: 200,
    });
    await gateway.db.memberWriteAudit.createMany({
      data: [
        ...[10, 30, 600].map((m) => record(minutesAgo(m), `old-${m}`)),
        ...[0, 1, 4].map((m) => record(minutesAgo(m), `young-${m}`)),
      ],
    });
    const config = env.config({ AUDIT_RETENTION_DAYS: String(5 / 1440) });
    expect(config.audit.retentionMs).toBe(300_000);

    const deleted = await purgeExpired(readModelPool(gateway.db), {
      tokensMs: config.tokens.retentionMs,
      auditMs: config.audit.retentionMs,
      webhookEventsMs: config.webhooks.retentionMs,
      usageMs: config.usage.retentionMs,
    });

    expect(deleted.audit).toBe(3);
    const left = await gateway.db.memberWriteAudit.findMany({ orderBy: { request_id: 'asc' } });
    expect(left.map((r) => r.request_id)).toEqual(['young-0', 'young-1', 'young-4']);
  });
});
