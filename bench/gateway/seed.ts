// The benchmark's read model: a generated member table of the wanted size (names drawn so that
// the search term matches about one member in 25, as the commonest Turkish surname would), both
// tables behind X-Data-Age marked synced, and one client allowed everything, with limits no run
// can reach, so every request takes the limiter's whole path and none is refused.
import pg from 'pg';
import { foldTurkish } from '../../common/turkish.js';
import type { ReadModelClient } from '../../common/databases.js';
import { SCOPES } from '../../gateway/src/features/auth/scopes.js';
import { createClient } from '../../gateway/src/features/clients/clients.repository.js';

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
    // As autovacuum would leave a table that size: statistics and a visibility map.
    await client.query('VACUUM ANALYZE members');
    await client.query(
      `INSERT INTO sync_state (table_name, synced_at) VALUES ('members', now()), ('branches', now())
       ON CONFLICT (table_name) DO UPDATE SET synced_at = now()`,
    );
  } finally {
    await client.end();
  }
}

export function createBenchClient(db: ReadModelClient) {
  return createClient(db, {
    name: 'bench',
    scopes: [...SCOPES],
    branchId: null,
    limits: { minute: 1e9, hour: 1e9, day: 1e9 },
  });
}
