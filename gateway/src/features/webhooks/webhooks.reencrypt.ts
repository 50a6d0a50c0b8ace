// `npm run webhooks -- reencrypt-secrets` (webhooks.commands.ts): every stored signing secret
// sealed again under SECRETS_KEY's first key (api/webhooks/secrets.ts). Part of the webhook
// service (webhooks.service.ts), which passes its database and secrets in.
import type { ReadModelClient } from '#common/databases.js';
import type { WebhookSecrets } from '#api/webhooks/secrets.js';

/** What reencryptSecrets did: subscriptions whose secrets it sealed again, or could not open. */
export interface Reencrypted {
  reencrypted: number;
  unchanged: number;
  unreadable: { id: number; reason: string }[];
}

/**
 * Every stored secret (current and previous) sealed under SECRETS_KEY's first key, those
 * stored in plain text included. A row rotated meanwhile is read again, never overwritten.
 */
export async function reencryptSecrets({
  db,
  secrets,
}: {
  db: ReadModelClient;
  secrets: WebhookSecrets;
}): Promise<Reencrypted> {
  const done: Reencrypted = { reencrypted: 0, unchanged: 0, unreadable: [] };
  const ids = await db.webhookSubscription.findMany({
    select: { id: true },
    orderBy: { id: 'asc' },
  });
  for (const { id } of ids) {
    for (;;) {
      const row = await db.webhookSubscription.findUnique({
        where: { id },
        select: { secret: true, previous_secret: true },
      });
      if (!row) break;
      let sealed: { secret: string; previous_secret: string | null };
      try {
        sealed = {
          secret: secrets.resealed(row.secret),
          previous_secret: row.previous_secret && secrets.resealed(row.previous_secret),
        };
      } catch (error) {
        done.unreadable.push({ id, reason: (error as Error).message });
        break;
      }
      if (sealed.secret === row.secret && sealed.previous_secret === row.previous_secret) {
        done.unchanged += 1;
        break;
      }
      const { count } = await db.webhookSubscription.updateMany({
        where: { id, ...row },
        data: sealed,
      });
      if (count > 0) {
        done.reencrypted += 1;
        break;
      }
    }
  }
  return done;
}
