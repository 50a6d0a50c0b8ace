// Generates realistic dashboard data into a legacy database, deterministically (seeded), in
// multi-row INSERTs. `scale` 1 is a small club chain (demo); the benchmarks use larger scales.
import type { Connection } from 'mariadb';
import { installmentRows, transactionRows } from './money-rows.js';
import { BRANCHES, CATEGORIES, FAMILY, GIVEN, PACKAGES, PRODUCTS, ROLES } from './club-words.js';
import {
  dayOf,
  pad,
  random,
  validTcNo,
  wallClock,
  YEAR,
  type Drawn,
  type Random,
  type Row,
} from './draws.js';

export { random, validTcNo, type Random } from './draws.js';

export interface GenerateOptions {
  scale?: number;
  seed?: number;
  /** "now" of the generated history, as Istanbul wall-clock "YYYY-MM-DD HH:MM:SS". */
  now?: Date;
}

export interface GeneratedCounts {
  [table: string]: number;
}

/**
 * Inserts `rows` in multi-row INSERTs. The columns are the first row's keys; every row of one
 * call is built by one object literal, so its type gives each row all of them.
 */
async function insertRows<R extends Row>(conn: Connection, table: string, rows: R[]) {
  if (rows.length === 0) return;
  const columns = Object.keys(rows[0]!) as (keyof R & string)[];
  const perStatement = Math.max(1, Math.floor(20000 / columns.length));
  const tuple = `(${columns.map(() => '?').join(',')})`;
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    await conn.query(
      `INSERT INTO ${table} (${columns.join(',')}) VALUES ${chunk.map(() => tuple).join(',')}`,
      chunk.flatMap((row) => columns.map((column) => row[column])),
    );
  }
}

export async function generateLegacyData(
  conn: Connection,
  options: GenerateOptions = {},
): Promise<GeneratedCounts> {
  const scale = options.scale ?? 1;
  const rnd = random(options.seed ?? 42);
  // Istanbul wall clock of "now", as a Date whose UTC fields show it.
  const now = new Date((options.now ?? new Date()).getTime() + 3 * 3600 * 1000);
  const counts: GeneratedCounts = {};

  // The rows are drawn in this order, table by table: the same seed gives the same data.
  const branchCount = Math.min(BRANCHES.length, 3 + Math.ceil(scale));
  const branches = branchRows(rnd, branchCount);
  await insertRows(conn, 'branches', branches);
  counts.branches = branches.length;

  await insertRows(
    conn,
    'roles',
    ROLES.map((name, i) => ({ id: i + 1, name })),
  );
  counts.roles = ROLES.length;

  await insertRows(conn, 'packages', packageRows());
  counts.packages = PACKAGES.length;

  const staff = staffRows(rnd, now, branchCount);
  await insertRows(conn, 'staff', staff);
  counts.staff = staff.length;

  const memberCount = Math.round(300 * scale);
  const { members, perBranch, memberBranch } = memberRows(rnd, now, { memberCount, branchCount });
  await insertRows(conn, 'members', members);
  await insertRows(
    conn,
    'member_counters',
    [...perBranch.entries()].map(([branchId, lastNo]) => ({
      branch_id: branchId,
      last_no: lastNo,
    })),
  );
  counts.members = memberCount;

  const drawn: Drawn = {
    rnd,
    now,
    branchCount,
    memberCount,
    staffCount: staff.length,
    memberBranch,
  };
  const memberPackages = memberPackageRows(drawn);
  await insertRows(conn, 'member_packages', memberPackages);
  counts.member_packages = memberPackages.length;

  const transactions = transactionRows(drawn);
  await insertRows(conn, 'financial_transactions', transactions);
  counts.financial_transactions = transactions.length;

  const { plans, installments } = installmentRows(drawn);
  await insertRows(conn, 'installment_plans', plans);
  await insertRows(conn, 'installments', installments);
  counts.installment_plans = plans.length;
  counts.installments = installments.length;

  await insertRows(
    conn,
    'market_categories',
    CATEGORIES.map((name, i) => ({ id: i + 1, name, is_active: 1 })),
  );
  const products = productRows(rnd);
  await insertRows(conn, 'market_products', products);
  counts.market_categories = CATEGORIES.length;
  counts.market_products = products.length;

  const notifications = notificationRows(rnd, now, { scale, branchCount });
  await insertRows(conn, 'notifications', notifications);
  counts.notifications = notifications.length;

  const lessons = lessonRows(drawn);
  await insertRows(conn, 'private_lessons', lessons);
  counts.private_lessons = lessons.length;

  const presence = presenceRows(drawn);
  await insertRows(conn, 'presence_logs', presence);
  counts.presence_logs = presence.length;

  return counts;
}

function branchRows(rnd: Random, branchCount: number) {
  return BRANCHES.slice(0, branchCount).map((name, i) => ({
    id: i + 1,
    name: `${name} Şubesi`,
    address: `${name}, İstanbul`,
    status: i === branchCount - 1 && branchCount > 3 ? 'Pasif' : 'Aktif',
    manager_name: `${rnd.pick(GIVEN)} ${rnd.pick(FAMILY)}`,
    phone: `0212${pad(rnd.int(0, 9999999), 7)}`,
    email: `${i + 1}@club.example`,
    founded_at: '2015-03-01',
  }));
}

function packageRows() {
  return PACKAGES.map(([name, price, days, months], i) => ({
    id: i + 1,
    name,
    price,
    duration_days: days,
    duration_months: months,
    is_active: i === 5 ? 0 : 1,
    sort_order: i,
  }));
}

function staffRows(rnd: Random, now: Date, branchCount: number) {
  return Array.from({ length: branchCount * 4 }, (_, i) => {
    const wall = wallClock(now, rnd.int(30 * 86400, 3 * YEAR));
    return {
      id: i + 1,
      full_name: `${rnd.pick(GIVEN)} ${rnd.pick(FAMILY)}`,
      username: `staff${i + 1}`,
      email: `staff${i + 1}@club.example`,
      phone: `053${pad(rnd.int(0, 99999999), 8)}`,
      password_hash: '$2y$10$notarealhashnotarealhashnotarealhashnotarealhash',
      remember_token: null,
      branch_id: (i % branchCount) + 1,
      role_id: (i % ROLES.length) + 1,
      is_active: rnd.chance(0.9) ? 1 : 0,
      last_login: rnd.chance(0.8) ? wallClock(now, rnd.int(0, 30 * 86400)) : null,
      created_at: wall,
      updated_at: wall,
    };
  });
}

/** The members, numbered per branch: the last number of each branch, each member's branch. */
function memberRows(
  rnd: Random,
  now: Date,
  { memberCount, branchCount }: { memberCount: number; branchCount: number },
) {
  const perBranch = new Map<number, number>();
  const members: Row[] = [];
  const memberBranch: number[] = [];
  for (let id = 1; id <= memberCount; id++) {
    const branchId = rnd.int(1, branchCount);
    const no = (perBranch.get(branchId) ?? 0) + 1;
    perBranch.set(branchId, no);
    memberBranch[id] = branchId;
    members.push(memberRow(rnd, now, { id, branchId, no }));
  }
  return { members, perBranch, memberBranch };
}

/**
 * One member as the dashboard keeps it: member `no` of its branch, registered some time before
 * `now`; its phone, tc_no (valid check digits), QR and referral codes follow from its id, so they
 * are unique. The sandbox draws its new members here too.
 */
export function memberRow(
  rnd: Random,
  now: Date,
  { id, branchId, no }: { id: number; branchId: number; no: number },
) {
  const registered = wallClock(now, rnd.int(0, 3 * YEAR));
  return {
    id,
    full_name: rnd.pick(GIVEN),
    surname: rnd.chance(0.95) ? rnd.pick(FAMILY) : null,
    phone: `05${pad(30 + (id % 70), 2)}${pad(id, 7)}`,
    email: rnd.chance(0.7) ? `uye${id}@example.com` : null,
    tc_no: rnd.chance(0.8) ? validTcNo(`${rnd.int(1, 9)}${pad(id, 8)}`) : null,
    member_no: `${pad(branchId, 3)}${pad(no, 6)}`,
    gender: rnd.chance(0.5) ? ('Kadın' as const) : ('Erkek' as const),
    birth_date: `${rnd.int(1960, 2008)}-${pad(rnd.int(1, 12))}-${pad(rnd.int(1, 28))}`,
    branch_id: branchId,
    entry_status: rnd.chance(0.05) ? 1 : 0,
    balance: (rnd.int(0, 50000) / 100).toFixed(2),
    freeze_status: rnd.chance(0.03) ? 1 : 0,
    status: rnd.chance(0.85) ? 'Aktif' : 'Pasif',
    registered_at: registered,
    address: `${rnd.pick(BRANCHES)} Mah. No ${rnd.int(1, 200)}`,
    qr_code: `QR${pad(id, 20)}`.slice(0, 22),
    referral_code: `R${pad(id, 7)}`,
    is_deleted: rnd.chance(0.01) ? 1 : 0,
    created_at: registered,
    updated_at: registered,
  };
}

function memberPackageRows({ rnd, now, memberCount, memberBranch }: Drawn) {
  return Array.from({ length: Math.round(memberCount * 1.3) }, (_, i) => {
    const memberId = rnd.int(1, memberCount);
    const start = wallClock(now, rnd.int(0, YEAR));
    const end = wallClock(
      new Date(Date.parse(`${dayOf(start)}T00:00:00Z`) + 3 * 3600 * 1000),
      -rnd.int(30, 365) * 86400,
    );
    const [, price] = PACKAGES[i % 4]!;
    return {
      id: i + 1,
      member_id: memberId,
      package_id: (i % 4) + 1,
      branch_id: memberBranch[memberId],
      start_date: dayOf(start),
      end_date: dayOf(end),
      status: rnd.pick(['Aktif', 'Aktif', 'Aktif', 'Pasif', 'Donduruldu', 'Süresi Doldu', 'İptal']),
      price_paid: price,
      created_at: start,
      updated_at: start,
    };
  });
}

function productRows(rnd: Random) {
  return PRODUCTS.map((name, i) => ({
    id: i + 1,
    name,
    category_id: (i % CATEGORIES.length) + 1,
    price: (rnd.int(2000, 90000) / 100).toFixed(2),
    stock: rnd.int(0, 200),
    is_active: i === 7 ? 0 : 1,
  }));
}

function notificationRows(
  rnd: Random,
  now: Date,
  { scale, branchCount }: { scale: number; branchCount: number },
) {
  return Array.from({ length: Math.round(30 * scale) }, (_, i) => {
    const at = wallClock(now, rnd.int(0, 80 * 86400));
    return {
      id: i + 1,
      branch_id: rnd.chance(0.3) ? null : rnd.int(1, branchCount),
      title: `Duyuru ${i + 1}`,
      message: 'Kulüp duyurusu',
      type: rnd.pick(['Bilgi', 'Uyarı', 'Ödeme', 'Sistem']),
      is_read: rnd.chance(0.5) ? 1 : 0,
      created_at: at,
    };
  });
}

function lessonRows({ rnd, now, memberCount, staffCount }: Drawn) {
  return Array.from({ length: Math.round(memberCount / 10) }, (_, i) => {
    const total = rnd.pick([5, 10, 20]);
    const at = wallClock(now, rnd.int(0, YEAR));
    return {
      id: i + 1,
      member_id: rnd.int(1, memberCount),
      package_id: 5,
      trainer_id: rnd.int(1, staffCount),
      total_lessons: total,
      remaining_lessons: rnd.int(0, total),
      created_at: at,
      updated_at: at,
    };
  });
}

function presenceRows({ rnd, now, memberCount, memberBranch }: Drawn) {
  return Array.from({ length: Math.round(memberCount * 4) }, (_, i) => {
    const memberId = rnd.int(1, memberCount);
    const secondsAgo = rnd.int(0, 90 * 86400);
    const entry = wallClock(now, secondsAgo);
    const left = secondsAgo > 4 * 3600 || rnd.chance(0.5);
    const exit = left ? wallClock(now, secondsAgo - rnd.int(1800, 3 * 3600)) : null;
    return {
      id: i + 1,
      member_id: memberId,
      branch_id: memberBranch[memberId],
      entry_time: entry,
      exit_time: exit,
      direction: left ? 'Çıkış' : 'Giriş',
      access_method: rnd.pick(['QR', 'Kart', 'Parmak İzi', 'Manuel']),
      created_at: entry,
      updated_at: exit ?? entry,
    };
  });
}
