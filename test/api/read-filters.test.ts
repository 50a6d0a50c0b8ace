// Every filter of every read operation over a legacy database written the way the dashboard
// writes it: Turkish-aware search (LIKE wildcards taken literally), inclusive Istanbul days a
// minute either side of midnight, booleans, enums, and 400 VALIDATION_ERROR with details on
// every bad value, never a silent clamp.
import { describe, expect } from 'vitest';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { readFixtureTest as it } from '../support/fixtures.js';
import type { FixtureIds, ReadFixture } from '../support/read-fixture.js';

// Read by the tables below and by it.each's tests, which get no fixtures of their own.
let fixture: ReadFixture;
let ids: FixtureIds;

it.beforeAll(({ fixture: made }) => {
  fixture = made;
  ids = made.ids;
});

const idsOf = (body: { data: { id: number }[] }) => body.data.map((row) => row.id);

/** `{member}`, `{branch:sukru}`, ... in a path stand for the fixture's ids. */
function fill(template: string): string {
  return template.replace(/\{(\w+)(?::(\w+))?\}/g, (_m, kind: string, name?: string) => {
    const table = (ids as unknown as Record<string, Record<string, number>>)[kind]!;
    return encodeURIComponent(String(table[name ?? 'ismail']));
  });
}

// [path and query, the ids answered, in order]
const FILTERS: [string, () => number[]][] = [
  ['/members?status=passive', () => [ids.member.deniz]],
  ['/members?status=active', () => [ids.member.ismail, ids.member.sukru]],
  ['/members?branch_id={branch:sukru}', () => [ids.member.sukru]],
  ['/members?search=ISMAIL', () => [ids.member.ismail]],
  ['/members?search=sukru', () => [ids.member.sukru]],
  ['/members?search=%2B90%20532%20111%2022%2033', () => [ids.member.ismail]],
  ['/members?search=%25', () => []],
  ['/members?search=_', () => []],
  ['/members/{member}/packages?status=Donduruldu', () => [ids.memberPackage.frozen]],
  ['/members/{member}/packages?status=Aktif', () => [ids.memberPackage.active]],
  ['/members/{member}/financial?transaction_type=Gider', () => [ids.tx.t5]],
  [
    '/members/{member}/financial?start_date=2026-03-10&end_date=2026-03-10',
    () => [ids.tx.t5, ids.tx.t1, ids.tx.t3],
  ],
  ['/members/{member}/financial?end_date=2026-03-09', () => []],
  ['/branches?status=Pasif', () => [ids.branch.isik]],
  ['/branches?status=Aktif', () => [ids.branch.ismail, ids.branch.sukru, ids.branch.percent]],
  ['/packages?is_active=true', () => [ids.pkg.monthly]],
  ['/packages?is_active=false', () => [ids.pkg.passive]],
  ['/financial/transactions?branch_id={branch:sukru}', () => [ids.tx.t4]],
  ['/financial/transactions?member_id={member}', () => [ids.tx.t5, ids.tx.t1, ids.tx.t3]],
  // 23:59 of the end day is in, 00:00 of the next day is out; 23:59:59 of the day before is out.
  [
    '/financial/transactions?start_date=2026-03-10&end_date=2026-03-10',
    () => [ids.tx.t5, ids.tx.t1, ids.tx.t3],
  ],
  ['/financial/transactions?start_date=2026-03-11', () => [ids.tx.t2]],
  ['/financial/transactions?end_date=2026-03-09', () => [ids.tx.t4]],
  ['/financial/transactions?transaction_type=Gider', () => [ids.tx.t2, ids.tx.t5]],
  ['/financial/transactions?payment_method=Kredi%20Kart%C4%B1', () => [ids.tx.t3]],
  ['/financial/transactions?payment_method=Havale%2FEFT', () => [ids.tx.t2]],
  ['/financial/transactions?is_cancelled=true', () => [ids.tx.t3]],
  [
    '/financial/transactions?is_cancelled=false',
    () => [ids.tx.t2, ids.tx.t5, ids.tx.t1, ids.tx.t4],
  ],
  ['/financial/installments?branch_id={branch:sukru}', () => [ids.plan.sukru]],
  ['/financial/installments?member_id={member}', () => [ids.plan.ismail]],
  ['/financial/installments?status=Tamamland%C4%B1', () => [ids.plan.sukru]],
  ['/market/products?category_id={category:old}', () => [ids.product.isik]],
  ['/market/products?is_active=true', () => [ids.product.ismail, ids.product.sukru]],
  ['/market/products?is_active=false', () => [ids.product.isik]],
  ['/market/categories?is_active=true', () => [ids.category.drinks]],
  ['/market/categories?is_active=false', () => [ids.category.old]],
  ['/staff?branch_id={branch:sukru}', () => [ids.staff.sukru]],
  ['/staff?is_active=false', () => [ids.staff.isik]],
  ['/staff?is_active=true', () => [ids.staff.ismail, ids.staff.sukru]],
  // A branch filter narrows to that branch's own notifications, without those sent to all.
  ['/notifications?branch_id={branch}', () => [ids.notification.n1]],
  ['/notifications?is_read=true', () => [ids.notification.n2]],
  ['/notifications?is_read=false', () => [ids.notification.n3, ids.notification.n1]],
  ['/notifications?type=%C3%96deme', () => [ids.notification.n3]],
  ['/private-lessons?member_id={member:deniz}', () => [ids.privateLesson.deniz]],
  [
    '/private-lessons?branch_id={branch}',
    () => [ids.privateLesson.ismail, ids.privateLesson.deniz],
  ],
  ['/presence?branch_id={branch:sukru}', () => [ids.presence.otherBranch]],
  ['/presence?member_id={member:deniz}', () => [ids.presence.afterMidnight]],
  [
    '/presence?start_date=2026-11-20&end_date=2026-11-20',
    () => [ids.presence.lateEntry, ids.presence.otherBranch],
  ],
  ['/presence?start_date=2026-11-21', () => [ids.presence.afterMidnight]],
  ['/presence?direction=%C3%87%C4%B1k%C4%B1%C5%9F', () => [ids.presence.afterMidnight]],
  ['/presence?direction=Giri%C5%9F', () => [ids.presence.lateEntry, ids.presence.otherBranch]],
];

describe('filters', () => {
  it('when a list operation declares a filter, then this table exercises it', () => {
    const exercised = new Set(
      [...FILTERS.map(([path]) => path), ...SEARCHES.map(([path]) => `${path}?search=`)].flatMap(
        (path) => {
          const [route, query] = path.replace(/\{[\w:]+\}/g, '{}').split('?');
          return [...new URLSearchParams(query).keys()].map((key) => `${route} ${key}`);
        },
      ),
    );
    const declared = ENDPOINTS.filter((e) => e.method === 'GET' && 'pagination' in e.response.shape)
      .flatMap((e) =>
        Object.keys(e.query?.shape ?? {}).map(
          (key) => `${e.path.replace(/\{\w+\}/g, '{}')} ${key}`,
        ),
      )
      .filter((line) => !/ (page|limit)$/.test(line));
    expect(declared.filter((line) => !exercised.has(line))).toEqual([]);
  });

  it.each(FILTERS)(
    'when asking %s, then exactly the matching rows come back',
    async (path, expected) => {
      const { status, body } = await fixture.get(fill(path));
      expect(status).toBe(200);
      expect(idsOf(body as never)).toEqual(expected());
      expect(body.pagination.total).toBe(expected().length);
    },
  );
});

const SEARCHES: [string, string, (i: FixtureIds) => number[]][] = [];
for (const [path, kind] of [
  ['/branches', 'branch'],
  ['/staff', 'staff'],
  ['/market/products', 'product'],
] as const) {
  const pick = (name: string) => (i: FixtureIds) => [(i[kind] as Record<string, number>)[name]!];
  SEARCHES.push(
    [path, 'ismail', pick('ismail')],
    [path, 'İSMAİL', pick('ismail')],
    [path, 'IŞIK', pick('isik')],
    [path, 'sukru', pick('sukru')],
    [path, 'ŞÜKRÜ', pick('sukru')],
    [path, '_', () => []],
    [path, '%', kind === 'branch' ? pick('percent') : () => []],
  );
}

describe('search', () => {
  it.each(SEARCHES)(
    'when searching %s for %s, then Turkish spellings match and LIKE wildcards are plain characters',
    async (path, search, expected) => {
      const { status, body } = await fixture.get(`${path}?search=${encodeURIComponent(search)}`);
      expect(status).toBe(200);
      expect(idsOf(body as never)).toEqual(expected(ids));
    },
  );
});
