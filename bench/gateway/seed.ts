// The benchmark's read model: a generated member table of the wanted size (names drawn so that
// the search term matches about one member in 25, as the commonest Turkish surname would), both
// tables behind X-Data-Age marked synced, and one client allowed everything, with limits no run
// can reach, so every request takes the limiter's whole path and none is refused (index.ts makes
// a second one, bound to branch 1, for the branch-scoped reads).
import type { DataClass } from '#api/data-classes.js';
import pg from 'pg';
import { foldTurkish } from '#common/turkish.js';
import type { ReadModelClient } from '#common/databases.js';
import { SCOPES } from '#api/scopes.js';
import { createClient } from '../../gateway/src/features/clients/clients.repository.js';
import { createClientSecrets } from '../../gateway/src/trust/client-secrets.js';
import { BENCH_SECRETS_KEY, type Started } from './processes.js';

const FIRST_NAMES = ['Ahmet', 'Mehmet', 'Ayşe', 'Fatma', 'Mustafa', 'Emine', 'Ali', 'Zeynep'];
const SURNAMES = [
  'Yılmaz',
  'Kaya',
  'Demir',
  'Şahin',
  'Çelik',
  'Yıldız',
  'Yıldırım',
  'Öztürk',
  'Aydın',
  'Özdemir',
  'Arslan',
  'Doğan',
  'Kılıç',
  'Aslan',
  'Çetin',
  'Kara',
  'Koç',
  'Kurt',
  'Özkan',
  'Şimşek',
  'Polat',
  'Korkmaz',
  'Güneş',
  'Acar',
  'Erdoğan',
];

export async function seedMembers(databaseUrl: string, count: number): Promise<void> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    await client.query(
      `INSERT INTO members (id, full_name, surname, phone, email, member_no, gender, birth_date,
         branch_id, branch_name, entry_status, balance, freeze_status, status, registered_at,
         qr_code, created_at, updated_at, search_text, phone_digits)
       SELECT g, f.name, s.name, '0532' || lpad(g::text, 7, '0'), 'uye' || g || '@example.com',
         'M-' || g, CASE WHEN g % 2 = 0 THEN 'Erkek' ELSE 'Kadın' END,
         date '1970-01-01' + (g % 15000), 1 + g % 5, 'Şube ' || (1 + g % 5), false,
         (g % 1000)::numeric / 4, false, CASE WHEN g % 10 = 0 THEN 'Pasif' ELSE 'Aktif' END,
         now(), 'qr-' || g, now(), now(),
         f.folded || ' ' || s.folded || ' uye' || g || '@example.com', '0532' || lpad(g::text, 7, '0')
       FROM generate_series(1, $1::int) AS g
       CROSS JOIN LATERAL (SELECT ($2::text[])[1 + g % $3] AS name, ($4::text[])[1 + g % $3] AS folded) f
       CROSS JOIN LATERAL (SELECT ($5::text[])[1 + (g / $3) % $6] AS name,
                                  ($7::text[])[1 + (g / $3) % $6] AS folded) s`,
      [
        count,
        FIRST_NAMES,
        FIRST_NAMES.length,
        FIRST_NAMES.map(foldTurkish),
        SURNAMES,
        SURNAMES.length,
        SURNAMES.map(foldTurkish),
      ],
    );
    // The lists of every kind need rows too: the five branches, a price list, a year of
    // transactions (50 a branch a day), with the staff table behind their X-Data-Age.
    await client.query(
      `INSERT INTO branches (id, name, address, status, created_at, updated_at, search_text)
       SELECT g, 'Şube ' || g, 'Adres ' || g, 'Aktif', now(), now(), 'sube ' || g || ' adres ' || g
       FROM generate_series(1, 5) AS g`,
    );
    await client.query(
      `INSERT INTO packages (id, name, price, duration_days, is_active, sort_order, created_at, updated_at)
       SELECT g, 'Paket ' || g, 100 * g, 30, true, g, now(), now() FROM generate_series(1, 20) AS g`,
    );
    await client.query(
      `INSERT INTO financial_transactions (id, member_id, transaction_type, transaction_code, amount,
         balance_before, balance_after, payment_method, description, branch_id, transaction_date,
         is_active, is_cancelled, created_at, updated_at)
       SELECT g, 1 + g % $1::int, CASE WHEN g % 7 = 0 THEN 'Gider' ELSE 'Gelir' END, 'PAKET_SATIS',
         (g % 500)::numeric, 0, 0, 'Nakit', 'Satış', 1 + g % 5,
         now() - (g % 365) * interval '1 day' - (g % 86400) * interval '1 second', true, g % 50 = 0,
         now(), now()
       FROM generate_series(1, 91250) AS g`,
      [count],
    );
    // As autovacuum would leave tables that size: statistics and a visibility map.
    await client.query('VACUUM ANALYZE members, branches, packages, financial_transactions');
    await client.query(
      `INSERT INTO sync_state (table_name, synced_at)
       SELECT t, now() FROM unnest($1::text[]) AS t
       ON CONFLICT (table_name) DO UPDATE SET synced_at = now()`,
      [['members', 'branches', 'packages', 'financial_transactions', 'staff']],
    );
  } finally {
    await client.end();
  }
}

/**
 * The bench's client, holding every class of personal data; with `branchId`, the same client
 * bound to that branch; with `dataClasses`, holding those only.
 */
export function createBenchClient(
  db: ReadModelClient,
  branchId: number | null = null,
  dataClasses?: DataClass[],
) {
  return createClient(db, createClientSecrets([BENCH_SECRETS_KEY]), {
    name: `bench${branchId === null ? '' : `-branch-${branchId}`}${dataClasses ? `-${dataClasses.join('-')}` : ''}`,
    scopes: [...SCOPES],
    branchId,
    limits: { minute: 1e9, hour: 1e9, day: 1e9 },
    dataClasses,
  });
}

/** A token of the client, asked of the gateway as a partner would. */
export async function issueToken(gateway: Started, key: string, secret: string): Promise<string> {
  const response = await fetch(`${gateway.url}/api/v1/auth/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ client_key: key, client_secret: secret }),
  });
  const body = (await response.json()) as { data?: { access_token?: string } };
  if (!body.data?.access_token) throw new Error(`token request failed: ${response.status}`);
  return body.data.access_token;
}
