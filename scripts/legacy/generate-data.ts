// Generates realistic dashboard data into a legacy database, deterministically (seeded), in
// multi-row INSERTs. `scale` 1 is a small club chain (demo); the benchmarks use larger scales.
import type { Connection } from 'mariadb';

const GIVEN = [
  'Ayşe',
  'Fatma',
  'Zeynep',
  'Elif',
  'Şükrü',
  'İsmail',
  'Mehmet',
  'Çağla',
  'Gülşen',
  'Oğuz',
  'Ümit',
  'Işıl',
  'Ahmet',
  'Büşra',
  'Emre',
  'Özge',
];
const FAMILY = [
  'Yılmaz',
  'Kaya',
  'Demir',
  'Şahin',
  'Çelik',
  'Öztürk',
  'Aydın',
  'Arslan',
  'Doğan',
  'Kılıç',
  'Işık',
  'Güneş',
  'Yıldız',
  'Aksoy',
];
const BRANCHES = [
  'Kadıköy',
  'Beşiktaş',
  'Üsküdar',
  'Şişli',
  'Ataşehir',
  'Bakırköy',
  'Çankaya',
  'Karşıyaka',
];
const PACKAGES: [string, number, number | null, number | null][] = [
  ['Aylık Üyelik', 900, null, 1],
  ['3 Aylık Üyelik', 2400, null, 3],
  ['Yıllık Üyelik', 8000, null, 12],
  ['10 Günlük Deneme', 300, 10, null],
  ['Özel Ders 10 Seans', 5000, null, 2],
  ['Öğrenci Aylık', 600, null, 1],
];
const PRODUCTS = [
  'Protein Bar',
  'Su 500 ml',
  'Enerji İçeceği',
  'Havlu',
  'Eldiven',
  'Shaker',
  'Kreatin',
  'Vitamin',
];
const CATEGORIES = ['İçecek', 'Gıda', 'Ekipman', 'Takviye'];
const ROLES = ['Yönetici', 'Resepsiyon', 'Antrenör', 'Muhasebe'];

export interface GenerateOptions {
  scale?: number;
  seed?: number;
  /** "now" of the generated history, as Istanbul wall-clock "YYYY-MM-DD HH:MM:SS". */
  now?: Date;
}

export interface GeneratedCounts {
  [table: string]: number;
}

/** Mulberry32: small, fast and deterministic. */
function random(seed: number) {
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return {
    next,
    int: (min: number, max: number) => min + Math.floor(next() * (max - min + 1)),
    pick: <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)] as T,
    chance: (p: number) => next() < p,
  };
}

export function validTcNo(first9: string): string {
  const d = first9.split('').map(Number);
  const odd = d[0]! + d[2]! + d[4]! + d[6]! + d[8]!;
  const even = d[1]! + d[3]! + d[5]! + d[7]!;
  const d10 = (((odd * 7 - even) % 10) + 10) % 10;
  const d11 = (d.reduce((a, b) => a + b, 0) + d10) % 10;
  return `${first9}${d10}${d11}`;
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0');
/** A wall-clock DATETIME string `days` before `now` (plus some seconds). */
function wallClock(now: Date, secondsAgo: number): string {
  const t = new Date(now.getTime() - secondsAgo * 1000);
  return `${t.getUTCFullYear()}-${pad(t.getUTCMonth() + 1)}-${pad(t.getUTCDate())} ${pad(t.getUTCHours())}:${pad(t.getUTCMinutes())}:${pad(t.getUTCSeconds())}`;
}
const dayOf = (wall: string) => wall.slice(0, 10);

async function insertRows(
  conn: Connection,
  table: string,
  columns: string[],
  rows: unknown[][],
): Promise<void> {
  const perStatement = Math.max(1, Math.floor(20000 / columns.length));
  for (let i = 0; i < rows.length; i += perStatement) {
    const chunk = rows.slice(i, i + perStatement);
    const tuple = `(${columns.map(() => '?').join(',')})`;
    await conn.query(
      `INSERT INTO ${table} (${columns.join(',')}) VALUES ${chunk.map(() => tuple).join(',')}`,
      chunk.flat(),
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
  const YEAR = 365 * 86400;

  const branchCount = Math.min(BRANCHES.length, 3 + Math.ceil(scale));
  const branches = BRANCHES.slice(0, branchCount).map((name, i) => [
    i + 1,
    `${name} Şubesi`,
    `${name}, İstanbul`,
    i === branchCount - 1 && branchCount > 3 ? 'Pasif' : 'Aktif',
    `${rnd.pick(GIVEN)} ${rnd.pick(FAMILY)}`,
    `0212${pad(rnd.int(0, 9999999), 7)}`,
    `${i + 1}@club.example`,
    '2015-03-01',
  ]);
  await insertRows(
    conn,
    'branches',
    ['id', 'name', 'address', 'status', 'manager_name', 'phone', 'email', 'founded_at'],
    branches,
  );
  counts.branches = branches.length;

  await insertRows(
    conn,
    'roles',
    ['id', 'name'],
    ROLES.map((name, i) => [i + 1, name]),
  );
  counts.roles = ROLES.length;

  await insertRows(
    conn,
    'packages',
    ['id', 'name', 'price', 'duration_days', 'duration_months', 'is_active', 'sort_order'],
    PACKAGES.map(([name, price, days, months], i) => [
      i + 1,
      name,
      price,
      days,
      months,
      i === 5 ? 0 : 1,
      i,
    ]),
  );
  counts.packages = PACKAGES.length;

  const staff = Array.from({ length: branchCount * 4 }, (_, i) => {
    const wall = wallClock(now, rnd.int(30 * 86400, 3 * YEAR));
    return [
      i + 1,
      `${rnd.pick(GIVEN)} ${rnd.pick(FAMILY)}`,
      `staff${i + 1}`,
      `staff${i + 1}@club.example`,
      `053${pad(rnd.int(0, 99999999), 8)}`,
      '$2y$10$notarealhashnotarealhashnotarealhashnotarealhash',
      null,
      (i % branchCount) + 1,
      (i % ROLES.length) + 1,
      rnd.chance(0.9) ? 1 : 0,
      rnd.chance(0.8) ? wallClock(now, rnd.int(0, 30 * 86400)) : null,
      wall,
      wall,
    ];
  });
  await insertRows(
    conn,
    'staff',
    [
      'id',
      'full_name',
      'username',
      'email',
      'phone',
      'password_hash',
      'remember_token',
      'branch_id',
      'role_id',
      'is_active',
      'last_login',
      'created_at',
      'updated_at',
    ],
    staff,
  );
  counts.staff = staff.length;

  const memberCount = Math.round(300 * scale);
  const perBranch = new Map<number, number>();
  const members: unknown[][] = [];
  const memberBranch: number[] = [];
  for (let id = 1; id <= memberCount; id++) {
    const branchId = rnd.int(1, branchCount);
    const no = (perBranch.get(branchId) ?? 0) + 1;
    perBranch.set(branchId, no);
    memberBranch[id] = branchId;
    const registered = wallClock(now, rnd.int(0, 3 * YEAR));
    const given = rnd.pick(GIVEN);
    members.push([
      id,
      given,
      rnd.chance(0.95) ? rnd.pick(FAMILY) : null,
      `05${pad(30 + (id % 70), 2)}${pad(id, 7)}`,
      rnd.chance(0.7) ? `uye${id}@example.com` : null,
      rnd.chance(0.8) ? validTcNo(`${rnd.int(1, 9)}${pad(id, 8)}`) : null,
      `${pad(branchId, 3)}${pad(no, 6)}`,
      rnd.chance(0.5) ? 'Kadın' : 'Erkek',
      `${rnd.int(1960, 2008)}-${pad(rnd.int(1, 12))}-${pad(rnd.int(1, 28))}`,
      branchId,
      rnd.chance(0.05) ? 1 : 0,
      (rnd.int(0, 50000) / 100).toFixed(2),
      rnd.chance(0.03) ? 1 : 0,
      rnd.chance(0.85) ? 'Aktif' : 'Pasif',
      registered,
      `${rnd.pick(BRANCHES)} Mah. No ${rnd.int(1, 200)}`,
      `QR${pad(id, 20)}`.slice(0, 22),
      `R${pad(id, 7)}`,
      rnd.chance(0.01) ? 1 : 0,
      registered,
      registered,
    ]);
  }
  await insertRows(
    conn,
    'members',
    [
      'id',
      'full_name',
      'surname',
      'phone',
      'email',
      'tc_no',
      'member_no',
      'gender',
      'birth_date',
      'branch_id',
      'entry_status',
      'balance',
      'freeze_status',
      'status',
      'registered_at',
      'address',
      'qr_code',
      'referral_code',
      'is_deleted',
      'created_at',
      'updated_at',
    ],
    members,
  );
  await insertRows(
    conn,
    'member_counters',
    ['branch_id', 'last_no'],
    [...perBranch.entries()].map(([b, n]) => [b, n]),
  );
  counts.members = memberCount;

  const memberPackages = Array.from({ length: Math.round(memberCount * 1.3) }, (_, i) => {
    const memberId = rnd.int(1, memberCount);
    const start = wallClock(now, rnd.int(0, YEAR));
    const end = wallClock(
      new Date(Date.parse(`${dayOf(start)}T00:00:00Z`) + 3 * 3600 * 1000),
      -rnd.int(30, 365) * 86400,
    );
    const [, price] = PACKAGES[i % 4]!;
    return [
      i + 1,
      memberId,
      (i % 4) + 1,
      memberBranch[memberId],
      dayOf(start),
      dayOf(end),
      rnd.pick(['Aktif', 'Aktif', 'Aktif', 'Pasif', 'Donduruldu', 'Süresi Doldu', 'İptal']),
      price,
      start,
      start,
    ];
  });
  await insertRows(
    conn,
    'member_packages',
    [
      'id',
      'member_id',
      'package_id',
      'branch_id',
      'start_date',
      'end_date',
      'status',
      'price_paid',
      'created_at',
      'updated_at',
    ],
    memberPackages,
  );
  counts.member_packages = memberPackages.length;

  const codes = ['PAKET_SATIS', 'MARKET_SATIS', 'TAKSIT_TAHSILAT', 'OZEL_DERS', 'IADE', 'GIDER'];
  const transactions = Array.from({ length: Math.round(memberCount * 3) }, (_, i) => {
    const code = rnd.pick(codes);
    const expense = code === 'GIDER' || code === 'IADE';
    const memberId = code === 'GIDER' ? null : rnd.int(1, memberCount);
    const at = wallClock(now, rnd.int(0, YEAR));
    const cancelled = rnd.chance(0.03);
    return [
      i + 1,
      memberId,
      expense ? 'Gider' : 'Gelir',
      code,
      null,
      null,
      (rnd.int(1000, 500000) / 100).toFixed(2),
      '0.00',
      '0.00',
      rnd.pick(['Nakit', 'Kredi Kartı', 'Havale/EFT', 'Bakiye']),
      `${code} işlemi`,
      rnd.chance(0.9) ? rnd.int(1, staff.length) : null,
      memberId ? memberBranch[memberId] : rnd.int(1, branchCount),
      at,
      1,
      cancelled ? 1 : 0,
      cancelled ? at : null,
      cancelled ? 'Hatalı giriş' : null,
      cancelled ? 1 : null,
      at,
      at,
    ];
  });
  await insertRows(
    conn,
    'financial_transactions',
    [
      'id',
      'member_id',
      'transaction_type',
      'transaction_code',
      'reference_id',
      'reference_table',
      'amount',
      'balance_before',
      'balance_after',
      'payment_method',
      'description',
      'staff_id',
      'branch_id',
      'transaction_date',
      'is_active',
      'is_cancelled',
      'cancelled_at',
      'cancel_reason',
      'cancelled_by',
      'created_at',
      'updated_at',
    ],
    transactions,
  );
  counts.financial_transactions = transactions.length;

  const planCount = Math.round(memberCount / 6);
  const plans: unknown[][] = [];
  const installments: unknown[][] = [];
  for (let id = 1; id <= planCount; id++) {
    const memberId = rnd.int(1, memberCount);
    const created = wallClock(now, rnd.int(0, YEAR));
    const parts = rnd.int(2, 6);
    const amount = rnd.int(5, 40) * 100;
    plans.push([
      id,
      memberId,
      memberBranch[memberId],
      rnd.pick(['Aktif', 'Aktif', 'Tamamlandı', 'İptal']),
      (amount * parts).toFixed(2),
      created,
      created,
    ]);
    for (let k = 0; k < parts; k++) {
      const paid = rnd.chance(0.5);
      const due = dayOf(wallClock(now, rnd.int(-YEAR / 2, YEAR / 2)));
      installments.push([
        installments.length + 1,
        id,
        due,
        amount.toFixed(2),
        paid ? 1 : 0,
        paid ? created : null,
        created,
        created,
      ]);
    }
  }
  await insertRows(
    conn,
    'installment_plans',
    ['id', 'member_id', 'branch_id', 'status', 'total_amount', 'created_at', 'updated_at'],
    plans,
  );
  await insertRows(
    conn,
    'installments',
    ['id', 'plan_id', 'due_date', 'amount', 'is_paid', 'paid_at', 'created_at', 'updated_at'],
    installments,
  );
  counts.installment_plans = plans.length;
  counts.installments = installments.length;

  await insertRows(
    conn,
    'market_categories',
    ['id', 'name', 'is_active'],
    CATEGORIES.map((name, i) => [i + 1, name, 1]),
  );
  const products = PRODUCTS.map((name, i) => [
    i + 1,
    name,
    (i % CATEGORIES.length) + 1,
    (rnd.int(2000, 90000) / 100).toFixed(2),
    rnd.int(0, 200),
    i === 7 ? 0 : 1,
  ]);
  await insertRows(
    conn,
    'market_products',
    ['id', 'name', 'category_id', 'price', 'stock', 'is_active'],
    products,
  );
  counts.market_categories = CATEGORIES.length;
  counts.market_products = products.length;

  const notifications = Array.from({ length: Math.round(30 * scale) }, (_, i) => {
    const at = wallClock(now, rnd.int(0, 80 * 86400));
    return [
      i + 1,
      rnd.chance(0.3) ? null : rnd.int(1, branchCount),
      `Duyuru ${i + 1}`,
      'Kulüp duyurusu',
      rnd.pick(['Bilgi', 'Uyarı', 'Ödeme', 'Sistem']),
      rnd.chance(0.5) ? 1 : 0,
      at,
    ];
  });
  await insertRows(
    conn,
    'notifications',
    ['id', 'branch_id', 'title', 'message', 'type', 'is_read', 'created_at'],
    notifications,
  );
  counts.notifications = notifications.length;

  const lessons = Array.from({ length: Math.round(memberCount / 10) }, (_, i) => {
    const total = rnd.pick([5, 10, 20]);
    const at = wallClock(now, rnd.int(0, YEAR));
    return [
      i + 1,
      rnd.int(1, memberCount),
      5,
      rnd.int(1, staff.length),
      total,
      rnd.int(0, total),
      at,
      at,
    ];
  });
  await insertRows(
    conn,
    'private_lessons',
    [
      'id',
      'member_id',
      'package_id',
      'trainer_id',
      'total_lessons',
      'remaining_lessons',
      'created_at',
      'updated_at',
    ],
    lessons,
  );
  counts.private_lessons = lessons.length;

  const presence = Array.from({ length: Math.round(memberCount * 4) }, (_, i) => {
    const memberId = rnd.int(1, memberCount);
    const secondsAgo = rnd.int(0, 90 * 86400);
    const entry = wallClock(now, secondsAgo);
    const left = secondsAgo > 4 * 3600 || rnd.chance(0.5);
    const exit = left ? wallClock(now, secondsAgo - rnd.int(1800, 3 * 3600)) : null;
    return [
      i + 1,
      memberId,
      memberBranch[memberId],
      entry,
      exit,
      left ? 'Çıkış' : 'Giriş',
      rnd.pick(['QR', 'Kart', 'Parmak İzi', 'Manuel']),
      entry,
      exit ?? entry,
    ];
  });
  await insertRows(
    conn,
    'presence_logs',
    [
      'id',
      'member_id',
      'branch_id',
      'entry_time',
      'exit_time',
      'direction',
      'access_method',
      'created_at',
      'updated_at',
    ],
    presence,
  );
  counts.presence_logs = presence.length;

  return counts;
}
