// Every bad value on every read operation is 400 VALIDATION_ERROR with details naming the field:
// pagination out of bounds, ids that are not positive integers, and each filter's bad values.
// Nothing is silently clamped or ignored.
import { describe, expect } from 'vitest';
import { SCOPES } from '#api/scopes.js';
import { ENDPOINTS } from '../../gateway/src/endpoints.js';
import { clientTest } from '../support/fixtures.js';
import { bearer, getJson, type RunningGateway } from '../support/gateway.js';
import { pathWith, PROTECTED_ENDPOINTS } from '../support/protected-endpoints.js';
import { NO_RATE_LIMIT } from '../support/read-fixture.js';

const it = clientTest(NO_RATE_LIMIT, { scopes: [...SCOPES] });

// Read by the helpers below and by it.each's tests, which get no fixtures of their own.
let gateway: RunningGateway;
let token: string;

it.beforeAll(({ gateway: started, token: issued }) => {
  gateway = started;
  token = issued;
});

const get = (path: string) => getJson(`${gateway.url}${path}`, bearer(token));
const READS = PROTECTED_ENDPOINTS.filter((e) => e.method === 'GET');
const LISTS = READS.filter((e) => e.list).map((e) => pathWith(e, 1));
const SINGLES = READS.filter((e) => e.path.includes(':id'));

const tooLong = 'a'.repeat(101);
// [path, query, the field the details must name]
const CASES: [string, string, string][] = [
  ...LISTS.flatMap((path): [string, string, string][] => [
    [path, 'limit=201', 'limit'],
    [path, 'limit=0', 'limit'],
    [path, 'limit=1.5', 'limit'],
    [path, 'page=0', 'page'],
    [path, 'page=abc', 'page'],
  ]),
  ...SINGLES.flatMap((e): [string, string, string][] =>
    ['abc', '0', '-1', '1.5', '2147483648'].map((id) => [pathWith(e, id), '', 'id']),
  ),
  ['/api/v1/members', 'status=Aktif', 'status'],
  ['/api/v1/members', 'branch_id=abc', 'branch_id'],
  ['/api/v1/members', `search=${tooLong}`, 'search'],
  ['/api/v1/members/1/packages', 'status=Bitti', 'status'],
  ['/api/v1/members/1/financial', 'start_date=2026-02-30', 'start_date'],
  ['/api/v1/members/1/financial', 'end_date=10.03.2026', 'end_date'],
  ['/api/v1/members/1/financial', 'transaction_type=Income', 'transaction_type'],
  ['/api/v1/members/1/financial', 'start_date=2026-03-11&end_date=2026-03-10', 'end_date'],
  ['/api/v1/branches', 'status=aktif', 'status'],
  ['/api/v1/branches', 'search=', 'search'],
  ['/api/v1/packages', 'is_active=1', 'is_active'],
  ['/api/v1/packages', 'is_active=TRUE', 'is_active'],
  ['/api/v1/financial/transactions', 'branch_id=0', 'branch_id'],
  ['/api/v1/financial/transactions', 'member_id=x', 'member_id'],
  ['/api/v1/financial/transactions', 'start_date=2026-13-01', 'start_date'],
  ['/api/v1/financial/transactions', 'end_date=yesterday', 'end_date'],
  ['/api/v1/financial/transactions', 'start_date=2026-03-11&end_date=2026-03-10', 'end_date'],
  ['/api/v1/financial/transactions', 'transaction_type=gelir', 'transaction_type'],
  ['/api/v1/financial/transactions', 'payment_method=Cash', 'payment_method'],
  ['/api/v1/financial/transactions', 'is_cancelled=yes', 'is_cancelled'],
  ['/api/v1/financial/summary', 'branch_id=abc', 'branch_id'],
  ['/api/v1/financial/summary', 'start_date=2026-1-1', 'start_date'],
  ['/api/v1/financial/summary', 'start_date=2026-03-11&end_date=2026-03-10', 'end_date'],
  ['/api/v1/financial/installments', 'branch_id=-1', 'branch_id'],
  ['/api/v1/financial/installments', 'member_id=1.5', 'member_id'],
  ['/api/v1/financial/installments', 'status=Done', 'status'],
  ['/api/v1/dashboard/stats', 'branch_id=abc', 'branch_id'],
  ['/api/v1/dashboard/daily', 'branch_id=0', 'branch_id'],
  ['/api/v1/market/products', 'category_id=x', 'category_id'],
  ['/api/v1/market/products', 'is_active=0', 'is_active'],
  ['/api/v1/market/products', `search=${tooLong}`, 'search'],
  ['/api/v1/market/categories', 'is_active=no', 'is_active'],
  ['/api/v1/staff', 'branch_id=x', 'branch_id'],
  ['/api/v1/staff', 'is_active=yes', 'is_active'],
  ['/api/v1/staff', `search=${tooLong}`, 'search'],
  ['/api/v1/notifications', 'branch_id=x', 'branch_id'],
  ['/api/v1/notifications', 'is_read=1', 'is_read'],
  ['/api/v1/notifications', 'type=Info', 'type'],
  ['/api/v1/private-lessons', 'member_id=x', 'member_id'],
  ['/api/v1/private-lessons', 'branch_id=-5', 'branch_id'],
  ['/api/v1/presence', 'branch_id=x', 'branch_id'],
  ['/api/v1/presence', 'member_id=0', 'member_id'],
  ['/api/v1/presence', 'start_date=20261120', 'start_date'],
  ['/api/v1/presence', 'end_date=2026-11-31', 'end_date'],
  ['/api/v1/presence', 'direction=Giris', 'direction'],
];

describe('bad values on read operations', () => {
  it.each(CASES)(
    'when calling %s with %s, then it answers 400 VALIDATION_ERROR naming %s',
    async (path, query, field) => {
      const { status, body } = await get(query ? `${path}?${query}` : path);
      expect(status).toBe(400);
      expect(body).toMatchObject({ success: false, error: 'VALIDATION_ERROR' });
      expect(body.details).toEqual(
        expect.arrayContaining([{ field, message: expect.any(String) }]),
      );
    },
  );

  it('when every list operation is covered, then none is left out of the table', () => {
    expect(LISTS.length).toBe(READS.filter((e) => e.list).length);
    expect(LISTS.length).toBeGreaterThanOrEqual(13);
    expect(SINGLES.length).toBeGreaterThanOrEqual(7);
  });

  it.each(SINGLES.map((e) => [pathWith(e, 2147483647)]))(
    'when calling %s with the largest id, then it answers 404 NOT_FOUND, not an error',
    async (path) => {
      const { status, body } = await get(path);
      expect(status).toBe(404);
      expect(body).toMatchObject({ success: false, error: 'NOT_FOUND' });
    },
  );
});

/** Every operation that takes a search term, found from the declarations. */
const SEARCHES = ENDPOINTS.filter((e) =>
  Object.keys((e.query as { shape?: object } | undefined)?.shape ?? {}).includes('search'),
).map((e) => `/api/v1${e.path}`);

// A lone combining mark, marks and spaces, and the combining dot that "İ" leaves when lower-cased:
// each folds to nothing, which as a LIKE pattern would have matched every row.
const escaped = (term: string) =>
  [...term]
    .map((c) => (c === ' ' ? c : `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
    .join('');
const NOTHING_TERMS = ['\u0301', ' \u0301 \u0308 ', '\u0307\u0307'];

describe('a search term that folds to nothing', () => {
  it('when the operations are read from the declarations, then every search is covered', () => {
    expect(SEARCHES).toEqual(
      expect.arrayContaining(['/api/v1/members', '/api/v1/branches', '/api/v1/staff']),
    );
    expect(SEARCHES.length).toBeGreaterThanOrEqual(4);
  });

  it.each(SEARCHES.flatMap((path) => NOTHING_TERMS.map((term) => [path, escaped(term), term])))(
    'when calling %s with search="%s", then it answers 400 VALIDATION_ERROR naming search',
    async (path, _shown, term) => {
      const { status, body } = await get(`${path}?search=${encodeURIComponent(term)}`);
      expect(status).toBe(400);
      expect(body).toMatchObject({
        success: false,
        error: 'VALIDATION_ERROR',
        message: 'İstek parametreleri geçersiz.',
        request_id: expect.any(String),
      });
      expect(body.details).toEqual([{ field: 'search', message: expect.any(String) }]);
    },
  );

  it('when a search term folds to something, then it is answered', async () => {
    for (const path of SEARCHES) expect((await get(`${path}?search=%C3%A7`)).status).toBe(200);
  });
});
