// What `npm run bench -- --only gateway` measures: one line per endpoint. `baseline` answers the
// same request from a bare node:http + pg server (baseline-server.ts) over the same database;
// endpoints without one are reported without a ratio. A new list endpoint is one `list(...)` line.
// The names are what targets.ts looks figures up by.
import type pg from 'pg';

export interface BenchEndpoint {
  name: string;
  method: 'GET' | 'POST';
  /** Path and query on the gateway; the baseline server answers the same path. */
  path: string;
  connections: number;
  /**
   * Sends the bench client's bearer token; `'bound'`: the token of a client with the same scopes
   * bound to branch 1 (seed.ts), whose reads take the branch-scoped path; `'basic'`: one holding
   * only the `basic` class of members' personal data, whose answers are withheld
   * (docs/decisions/0023-data-classes.md).
   */
  bearer: boolean | 'bound' | 'basic';
  /** A JSON body (token issuance); `{{client_key}}`/`{{client_secret}}` are filled in. */
  body?: string;
  baseline?: (pool: pg.Pool) => Promise<unknown>;
  /**
   * Also measured on a second gateway started with USAGE_COUNTING=off, in the same rounds: what
   * counting each request costs (targets.ts); and on a third with tracing on (index.ts): what
   * tracing each request costs.
   */
  uncounted?: boolean;
}

export const SEARCH_TERM = 'yilmaz';
/** The deep page of the members list measured against the first. */
export const DEEP_PAGE = 2000;
const MEMBER_ID = 1;

// The gateway's member shape, built by hand as a bare server would.
const memberJson = (row: Record<string, unknown>) => ({
  ...row,
  balance: Number(row.balance),
  search_text: undefined,
  phone_digits: undefined,
});

async function page(pool: pg.Pool, table: string, where = '', params: unknown[] = [], pageNo = 1) {
  const offset = (pageNo - 1) * 50;
  const [rows, count] = await Promise.all([
    pool.query(`SELECT * FROM ${table} ${where} ORDER BY id LIMIT 50 OFFSET ${offset}`, params),
    pool.query<{ n: number }>(`SELECT count(*)::int AS n FROM ${table} ${where}`, params),
  ]);
  const total = count.rows[0]?.n ?? 0;
  return {
    success: true,
    data: rows.rows.map(memberJson),
    pagination: { page: pageNo, limit: 50, total, total_pages: Math.ceil(total / 50) },
  };
}

interface ListQuery {
  /** Query parameters before `limit=50`, each with its `&`, e.g. `branch_id=1&`. */
  query?: string;
  /** The same filter for the baseline, in SQL. */
  where?: string;
  params?: unknown[];
  page?: number;
}

/**
 * A list endpoint over one read-model table, a page of 50 (the first unless said) with its count.
 */
const list = (
  name: string,
  table: string,
  path: string,
  { query = '', where = '', params = [], page: pageNo = 1 }: ListQuery = {},
): BenchEndpoint => ({
  name,
  method: 'GET',
  path: `${path}?${query}limit=50`,
  connections: 10,
  bearer: true,
  baseline: (pool) => page(pool, table, where, params, pageNo),
});

// The read model's value of `status=active`.
const ACTIVE = 'Aktif';

export const ENDPOINTS: BenchEndpoint[] = [
  {
    name: 'members detail',
    method: 'GET',
    path: `/api/v1/members/${MEMBER_ID}`,
    connections: 50,
    bearer: true,
    uncounted: true,
    baseline: async (pool) => {
      const { rows } = await pool.query('SELECT * FROM members WHERE id = $1', [MEMBER_ID]);
      return { success: true, data: memberJson(rows[0] as Record<string, unknown>) };
    },
  },
  // The same read by a client holding only `basic`: what withholding costs (targets.ts). Right
  // after the read it is held against, as the list's pair is: a run that follows the search
  // meets the search's leftovers (the read model's and the gateway's) and would carry them.
  {
    name: 'members detail basic',
    method: 'GET',
    path: `/api/v1/members/${MEMBER_ID}`,
    connections: 50,
    bearer: 'basic',
  },
  {
    name: 'members search',
    method: 'GET',
    path: `/api/v1/members?search=${SEARCH_TERM}&limit=50`,
    connections: 10,
    bearer: true,
    baseline: (pool) => page(pool, 'members', 'WHERE search_text LIKE $1', [`%${SEARCH_TERM}%`]),
  },
  // Every list answers an exact total: these take the kept counts' path (branch, status, both).
  { ...list('members list', 'members', '/api/v1/members'), uncounted: true },
  // The list by the `basic` client, as the detail's pair above.
  { ...list('members list basic', 'members', '/api/v1/members'), bearer: 'basic' },
  list('members list branch 1', 'members', '/api/v1/members', {
    query: 'branch_id=1&',
    where: 'WHERE branch_id = $1',
    params: [1],
  }),
  list('members list active', 'members', '/api/v1/members', {
    query: 'status=active&',
    where: 'WHERE status = $1',
    params: [ACTIVE],
  }),
  list('members list active branch 1', 'members', '/api/v1/members', {
    query: 'branch_id=1&status=active&',
    where: 'WHERE branch_id = $1 AND status = $2',
    params: [1, ACTIVE],
  }),
  // Deep paging: rows 99,951–100,000 (seed.ts seeds 200,000 members by default); past the end
  // with fewer members, an empty page (targets.ts says so).
  list('members list page 2000', 'members', '/api/v1/members', {
    query: `page=${DEEP_PAGE}&`,
    page: DEEP_PAGE,
  }),
  list('branches list', 'branches', '/api/v1/branches'),
  list('packages list', 'packages', '/api/v1/packages'),
  {
    name: 'transactions of branch 1',
    method: 'GET',
    path: '/api/v1/financial/transactions?branch_id=1&limit=50',
    connections: 10,
    bearer: true,
    baseline: async (pool) => {
      const where = 'WHERE branch_id = $1';
      const [rows, count] = await Promise.all([
        pool.query(
          `SELECT * FROM financial_transactions ${where} ORDER BY transaction_date DESC, id DESC LIMIT 50`,
          [1],
        ),
        pool.query<{ n: number }>(
          `SELECT count(*)::int AS n FROM financial_transactions ${where}`,
          [1],
        ),
      ]);
      const total = count.rows[0]?.n ?? 0;
      return {
        success: true,
        data: rows.rows.map(memberJson),
        pagination: { page: 1, limit: 50, total, total_pages: Math.ceil(total / 50) },
      };
    },
  },
  // Aggregates over the whole read model; no bare counterpart.
  {
    name: 'dashboard stats',
    method: 'GET',
    path: '/api/v1/dashboard/stats',
    connections: 10,
    bearer: true,
  },
  // The same for a client bound to branch 1: every aggregate narrowed to the branch.
  {
    name: 'dashboard stats bound',
    method: 'GET',
    path: '/api/v1/dashboard/stats',
    connections: 10,
    bearer: 'bound',
  },
  {
    name: 'token issuance',
    method: 'POST',
    path: '/api/v1/auth/token',
    // One client's issuance, over few connections; the "token storm" round measures many
    // clients at once (bench/gateway/token-storm.ts).
    connections: 4,
    bearer: false,
    body: '{"client_key":"{{client_key}}","client_secret":"{{client_secret}}"}',
  },
];
