// Every read operation over a legacy database written the way the dashboard writes it: the
// envelope and the exact Pagination keys, each resource's fields with their types and every
// derived name computed from what was seeded, and the stable sort orders.
import { describe, expect } from 'vitest';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { PROTECTED_ENDPOINTS, pathWith } from '../support/protected-endpoints.js';
import { readFixtureTest as it } from '../support/fixtures.js';
import type { FixtureIds, ReadFixture } from '../support/read-fixture.js';

// Read by the tables below and by it.each's tests, which get no fixtures of their own.
let fixture: ReadFixture;
let ids: FixtureIds;

it.beforeAll(({ fixture: made }) => {
  fixture = made;
  ids = made.ids;
});

const instant = expect.stringMatching(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
/** The fields named, whatever else the object holds. */
const partly = (fields: object): unknown => expect.objectContaining(fields) as unknown;
// The reads of the read model (they carry X-Data-Age); webhook subscriptions are the client's own.
const READ_MODEL_READS = new Set(
  ENDPOINTS.filter((e) => e.tables.length > 0).map((e) => e.operationId),
);
const READS = PROTECTED_ENDPOINTS.filter(
  (e) => e.method === 'GET' && READ_MODEL_READS.has(e.operationId),
);
/** Each read operation's path under /api/v1, with `:id` filled by an existing object. */
const relative = (e: (typeof READS)[number]) => {
  const collection = e.path.split('/')[3];
  const existing: Record<string, number> = {
    members: ids.member.ismail,
    branches: ids.branch.ismail,
    packages: ids.pkg.monthly,
    staff: ids.staff.ismail,
  };
  return pathWith(e, existing[collection!] ?? 0).replace('/api/v1', '');
};

describe.each(READS.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', (_name, endpoint) => {
  it('when called, then it answers the envelope with exactly the specified keys and X-Data-Age', async () => {
    const { status, headers, body } = await fixture.get(relative(endpoint));
    expect(status).toBe(200);
    expect(body.success).toBe(true);
    expect(headers.get('x-data-age')).toMatch(/^\d+$/);
    if (endpoint.list) {
      expect(Object.keys(body).sort()).toEqual(['data', 'pagination', 'success']);
      expect(Array.isArray(body.data)).toBe(true);
      expect(Object.keys(body.pagination).sort()).toEqual([
        'limit',
        'page',
        'total',
        'total_pages',
      ]);
      for (const value of Object.values(body.pagination))
        expect(Number.isInteger(value)).toBe(true);
      expect(body.pagination).toMatchObject({ page: 1, limit: 50 });
    } else if (endpoint.operationId === 'listChanges') {
      // The change feed's own envelope: a cursor instead of pages.
      expect(Object.keys(body).sort()).toEqual(['data', 'has_more', 'next_cursor', 'success']);
      expect(Array.isArray(body.data)).toBe(true);
    } else {
      expect(Object.keys(body).sort()).toEqual(['data', 'success']);
      expect(typeof body.data).toBe('object');
    }
  });
});

/** [what, path, id of the row to pick from a list (or null for a single object), expected]. */
const OBJECTS: [string, () => string, () => number | null, () => unknown][] = [
  [
    'a member',
    () => `/members/${ids.member.ismail}`,
    () => null,
    () => ({
      id: ids.member.ismail,
      full_name: 'İsmail',
      surname: 'Kaya',
      phone: '05321112233',
      email: 'ismail@example.com',
      tc_no: '10000000146',
      member_no: expect.any(String),
      gender: 'Erkek',
      birth_date: '1990-02-03',
      branch_id: ids.branch.ismail,
      branch_name: 'İsmail Şubesi',
      entry_status: false,
      balance: 12.5,
      freeze_status: false,
      status: 'Aktif',
      registered_at: '2026-01-15T07:00:00.000Z',
      address: 'Kadıköy',
      qr_code: expect.any(String),
      referral_code: 'ABCD2345',
      created_at: instant,
      updated_at: instant,
    }),
  ],
  [
    'a branch',
    () => `/branches/${ids.branch.ismail}`,
    () => null,
    () => ({
      id: ids.branch.ismail,
      name: 'İsmail Şubesi',
      address: 'Moda Cd. 1',
      status: 'Aktif',
      manager_name: 'Ayşe Kara',
      phone: '02161234567',
      email: 'moda@example.com',
      founded_at: '2020-05-17',
    }),
  ],
  [
    'a branch without its optional fields',
    () => '/branches',
    () => ids.branch.isik,
    () => ({
      id: ids.branch.isik,
      name: 'ışık Şubesi',
      address: null,
      status: 'Pasif',
      manager_name: null,
      phone: null,
      email: null,
      founded_at: null,
    }),
  ],
  [
    'a package',
    () => `/packages/${ids.pkg.monthly}`,
    () => null,
    () => ({
      id: ids.pkg.monthly,
      name: 'Aylık Fitness',
      price: 1250.5,
      duration_days: null,
      duration_months: 1,
      is_active: true,
      sort_order: 2,
    }),
  ],
  [
    "a member's package (package_type_name)",
    () => `/members/${ids.member.ismail}/packages`,
    () => ids.memberPackage.active,
    () => ({
      id: ids.memberPackage.active,
      member_id: ids.member.ismail,
      package_id: ids.pkg.monthly,
      branch_id: ids.branch.ismail,
      package_type_name: 'Aylık Fitness',
      start_date: '2026-11-01',
      end_date: '2026-12-01',
      status: 'Aktif',
    }),
  ],
  [
    'a transaction (staff_name)',
    () => '/financial/transactions',
    () => ids.tx.t1,
    () => ({
      id: ids.tx.t1,
      member_id: ids.member.ismail,
      transaction_type: 'Gelir',
      transaction_code: 'PAKET_SATIS',
      reference_id: 7,
      reference_table: 'member_packages',
      amount: 1000,
      balance_before: 12.5,
      balance_after: 12.5,
      payment_method: 'Nakit',
      description: 'Paket satışı',
      staff_name: 'İsmail Demir',
      staff_id: ids.staff.ismail,
      branch_id: ids.branch.ismail,
      transaction_date: '2026-03-10T20:59:00.000Z',
      is_active: true,
      is_cancelled: false,
      cancelled_at: null,
      cancel_reason: null,
      cancelled_by: null,
      created_at: instant,
      updated_at: instant,
    }),
  ],
  [
    "a cancelled transaction in a member's history (no staff)",
    () => `/members/${ids.member.ismail}/financial`,
    () => ids.tx.t3,
    () =>
      partly({
        id: ids.tx.t3,
        transaction_code: 'MARKET_SATIS',
        amount: 50,
        payment_method: 'Kredi Kartı',
        staff_name: null,
        staff_id: null,
        reference_id: null,
        transaction_date: '2026-03-09T21:00:00.000Z',
        is_cancelled: true,
        cancelled_at: '2026-03-09T21:05:00.000Z',
        cancel_reason: 'Hatalı',
        cancelled_by: ids.staff.ismail,
      }),
  ],
  [
    'an installment plan (member_name, collected_amount)',
    () => '/financial/installments',
    () => ids.plan.ismail,
    () => ({
      id: ids.plan.ismail,
      member_id: ids.member.ismail,
      member_name: 'İsmail Kaya',
      branch_id: ids.branch.ismail,
      status: 'Aktif',
      total_amount: 3000,
      collected_amount: 1750.25,
      created_at: instant,
      updated_at: instant,
    }),
  ],
  [
    'an installment plan with nothing paid',
    () => '/financial/installments',
    () => ids.plan.sukru,
    () =>
      partly({
        member_name: 'Şükrü Öz',
        status: 'Tamamlandı',
        total_amount: 500,
        collected_amount: 0,
      }),
  ],
  [
    'a market product (category_name)',
    () => '/market/products',
    () => ids.product.ismail,
    () => ({
      id: ids.product.ismail,
      name: 'İsmail Usta Kahve',
      category_id: ids.category.drinks,
      category_name: 'İçecek',
      price: 45.9,
      stock: 10,
      is_active: true,
    }),
  ],
  [
    'a market category',
    () => '/market/categories',
    () => ids.category.drinks,
    () => ({
      id: ids.category.drinks,
      name: 'İçecek',
      is_active: true,
      created_at: '2026-01-02T00:04:05.000Z',
    }),
  ],
  [
    'a staff member (branch_name, role_name)',
    () => `/staff/${ids.staff.ismail}`,
    () => null,
    () => ({
      id: ids.staff.ismail,
      full_name: 'İsmail Demir',
      username: 'staff1',
      email: 's1@example.com',
      phone: '05320000000',
      branch_id: ids.branch.ismail,
      branch_name: 'İsmail Şubesi',
      role_name: 'Antrenör',
      is_active: true,
      created_at: instant,
      last_login: '2026-11-20T05:30:00.000Z',
    }),
  ],
  [
    'an inactive staff member who never logged in',
    () => '/staff',
    () => ids.staff.isik,
    () => partly({ role_name: 'Muhasebe', is_active: false, last_login: null }),
  ],
  [
    'a notification addressed to every branch',
    () => '/notifications',
    () => ids.notification.n2,
    () => ({
      id: ids.notification.n2,
      branch_id: null,
      title: 'Sistem başlık',
      message: 'Metin',
      type: 'Sistem',
      is_read: true,
      created_at: '2026-11-02T07:00:00.000Z',
    }),
  ],
  [
    'a private lesson (member_name, package_name)',
    () => '/private-lessons',
    () => ids.privateLesson.ismail,
    () => ({
      id: ids.privateLesson.ismail,
      member_id: ids.member.ismail,
      member_name: 'İsmail Kaya',
      branch_id: ids.branch.ismail,
      package_id: ids.pkg.monthly,
      package_name: 'Aylık Fitness',
      total_lessons: 10,
      remaining_lessons: 4,
      created_at: instant,
    }),
  ],
  [
    'a private lesson of a member without a surname',
    () => '/private-lessons',
    () => ids.privateLesson.deniz,
    () => partly({ member_name: 'Deniz', package_name: 'Eski Paket' }),
  ],
  [
    'a presence record (member_name)',
    () => '/presence',
    () => ids.presence.afterMidnight,
    () => ({
      id: ids.presence.afterMidnight,
      member_id: ids.member.deniz,
      member_name: 'Deniz',
      branch_id: ids.branch.ismail,
      entry_time: '2026-11-20T21:00:00.000Z',
      exit_time: '2026-11-20T22:00:00.000Z',
      direction: 'Çıkış',
      access_method: 'Kart',
    }),
  ],
];

describe('resource fields', () => {
  it.each(OBJECTS)(
    'when reading %s, then every field has its type and value',
    async (_what, path, pick, expected) => {
      const id = pick();
      const { status, body } = await fixture.get(id === null ? path() : `${path()}?limit=200`);
      expect(status).toBe(200);
      const row = id === null ? body.data : body.data.find((r: { id: number }) => r.id === id);
      expect(row).toEqual(expected());
    },
  );
});

describe('sorting', () => {
  const idsOf = (body: { data: { id: number }[] }) => body.data.map((r) => r.id);

  it.each([
    ['/members'],
    ['/branches'],
    ['/packages'],
    ['/financial/installments'],
    ['/market/products'],
    ['/market/categories'],
    ['/staff'],
    ['/private-lessons'],
  ])('when listing %s, then rows come by id ascending', async (path) => {
    const listed = idsOf((await fixture.get(path)).body as never);
    expect(listed.length).toBeGreaterThan(1);
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
  });

  it.each([
    ['/financial/transactions', () => [ids.tx.t2, ids.tx.t5, ids.tx.t1, ids.tx.t3, ids.tx.t4]],
    [`/members/:member/financial`, () => [ids.tx.t5, ids.tx.t1, ids.tx.t3]],
    ['/notifications', () => Object.values(ids.notification).reverse()],
    [
      '/presence',
      () => [ids.presence.afterMidnight, ids.presence.lateEntry, ids.presence.otherBranch],
    ],
  ])('when listing %s, then the newest come first, then id descending', async (path, order) => {
    const { body } = await fixture.get(path.replace(':member', String(ids.member.ismail)));
    expect(idsOf(body as never)).toEqual(order());
  });

  it('when paging, then pages follow the order and pagination counts the whole list', async () => {
    const second = await fixture.get('/financial/transactions?limit=2&page=2');
    expect(second.body.pagination).toEqual({ page: 2, limit: 2, total: 5, total_pages: 3 });
    expect(idsOf(second.body as never)).toEqual([ids.tx.t1, ids.tx.t3]);
    const beyond = await fixture.get('/financial/transactions?limit=2&page=9');
    expect(beyond.status).toBe(200);
    expect(beyond.body.data).toEqual([]);
    expect(beyond.body.pagination).toEqual({ page: 9, limit: 2, total: 5, total_pages: 3 });
  });
});
