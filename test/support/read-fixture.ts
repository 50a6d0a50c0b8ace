// A small legacy database written the way the dashboard writes it, for the read endpoint tests:
// every value set, every derived name, Turkish spellings for the searches, and rows a minute
// either side of Istanbul midnight for the date filters. Seeded once per test file, then synced.
import { SCOPES } from '#api/scopes.js';
import { createTestEnvironment, type TestEnvironment } from './environment.js';
import {
  bearer,
  createTestClient,
  getJson,
  issueToken,
  startGateway,
  type RunningGateway,
} from './gateway.js';
import { LegacyDashboard, type Values } from './legacy-dashboard.js';
import { syncOnce } from './sync-once.js';

/** Tests that walk many operations with one client stay clear of the per-client rate limit. */
export const NO_RATE_LIMIT = {
  RATE_LIMIT_PER_MINUTE: '1000000',
  RATE_LIMIT_PER_HOUR: '1000000',
  RATE_LIMIT_PER_DAY: '1000000',
};

export type FixtureIds = Awaited<ReturnType<typeof seedReadFixture>>;

/** The Turkish spellings each search must find: `ismail`, `IŞIK`, `sukru`, and a `%` literal. */
const SPELLINGS = { ismail: 'İsmail', isik: 'ışık', sukru: 'Şükrü' } as const;

async function seedPlaces(d: LegacyDashboard) {
  const branch = {
    ismail: await d.insertBranch({
      name: `${SPELLINGS.ismail} Şubesi`,
      address: 'Moda Cd. 1',
      manager_name: 'Ayşe Kara',
      phone: '02161234567',
      email: 'moda@example.com',
      founded_at: '2020-05-17',
    }),
    isik: await d.insertBranch({ name: `${SPELLINGS.isik} Şubesi`, status: 'Pasif' }),
    sukru: await d.insertBranch({ name: `${SPELLINGS.sukru} Şubesi` }),
    percent: await d.insertBranch({ name: 'Yüzde %50 Şubesi' }),
  };
  const role = {
    trainer: await d.insertRole('Antrenör'),
    accounts: await d.insertRole('Muhasebe'),
  };
  const staffOf = (full_name: string, n: number, values: Values) =>
    d.insertStaff({
      full_name,
      username: `staff${n}`,
      email: `s${n}@example.com`,
      phone: '05320000000',
      branch_id: branch.ismail,
      role_id: role.trainer,
      ...values,
    });
  const staff = {
    ismail: await staffOf(`${SPELLINGS.ismail} Demir`, 1, { last_login: '2026-11-20 08:30:00' }),
    isik: await staffOf(`Deniz ${SPELLINGS.isik}`, 2, { is_active: 0, role_id: role.accounts }),
    sukru: await staffOf(`${SPELLINGS.sukru} Kaya`, 3, { branch_id: branch.sukru }),
  };
  return { branch, role, staff };
}

async function seedCatalogue(d: LegacyDashboard) {
  const pkg = {
    monthly: await d.insertPackage({
      name: 'Aylık Fitness',
      price: 1250.5,
      duration_months: 1,
      sort_order: 2,
    }),
    passive: await d.insertPackage({ name: 'Eski Paket', is_active: 0, duration_days: 30 }),
  };
  const category = {
    drinks: await d.insertMarketCategory({ name: 'İçecek', created_at: '2026-01-02 03:04:05' }),
    old: await d.insertMarketCategory({ name: 'Eski', is_active: 0 }),
  };
  const productOf = (name: string, values: Values = {}) =>
    d.insertMarketProduct({ name, category_id: category.drinks, ...values });
  const product = {
    ismail: await productOf(`${SPELLINGS.ismail} Usta Kahve`, { price: 45.9, stock: 10 }),
    isik: await productOf(`${SPELLINGS.isik} Çubuğu`, { category_id: category.old, is_active: 0 }),
    sukru: await productOf(`${SPELLINGS.sukru} Kek`),
  };
  return { pkg, category, product };
}

async function seedMembers(d: LegacyDashboard, branch: { ismail: number; sukru: number }) {
  const member = {
    ismail: await d.insertMember({
      branch_id: branch.ismail,
      full_name: 'İsmail',
      surname: 'Kaya',
      phone: '05321112233',
      email: 'ismail@example.com',
      tc_no: '10000000146',
      gender: 'Erkek',
      birth_date: '1990-02-03',
      balance: 12.5,
      registered_at: '2026-01-15 10:00:00',
      address: 'Kadıköy',
      referral_code: 'ABCD2345',
    }),
    deniz: await d.insertMember({
      branch_id: branch.ismail,
      full_name: 'Deniz',
      surname: null,
      status: 'Pasif',
    }),
    sukru: await d.insertMember({ branch_id: branch.sukru, full_name: 'Şükrü', surname: 'Öz' }),
  };
  return member;
}

type Places = Awaited<ReturnType<typeof seedPlaces>>;
type Catalogue = Awaited<ReturnType<typeof seedCatalogue>>;
type Members = Awaited<ReturnType<typeof seedMembers>>;

/** Around Istanbul midnight of 2026-03-10; t5 shares t1's instant, so id breaks the tie. */
async function seedMoney(d: LegacyDashboard, p: Places, m: Members) {
  const a = p.branch.ismail;
  const tx = {
    t1: await d.insertTransaction({
      branch_id: a,
      member_id: m.ismail,
      staff_id: p.staff.ismail,
      amount: 1000,
      balance_before: 12.5,
      balance_after: 12.5,
      description: 'Paket satışı',
      reference_id: 7,
      reference_table: 'member_packages',
      transaction_date: '2026-03-10 23:59:00',
    }),
    t2: await d.insertTransaction({
      branch_id: a,
      transaction_type: 'Gider',
      transaction_code: 'GIDER',
      amount: 200,
      payment_method: 'Havale/EFT',
      transaction_date: '2026-03-11 00:00:00',
    }),
    t3: await d.insertTransaction({
      branch_id: a,
      member_id: m.ismail,
      transaction_code: 'MARKET_SATIS',
      amount: 50,
      payment_method: 'Kredi Kartı',
      is_cancelled: 1,
      cancelled_at: '2026-03-10 00:05:00',
      cancel_reason: 'Hatalı',
      cancelled_by: p.staff.ismail,
      transaction_date: '2026-03-10 00:00:00',
    }),
    t4: await d.insertTransaction({
      branch_id: p.branch.sukru,
      member_id: m.sukru,
      payment_method: 'Bakiye',
      transaction_date: '2026-03-09 23:59:59',
    }),
    t5: await d.insertTransaction({
      branch_id: a,
      member_id: m.ismail,
      transaction_type: 'Gider',
      transaction_code: 'IADE',
      amount: 100,
      transaction_date: '2026-03-10 23:59:00',
    }),
  };
  const plan = {
    ismail: await d.insertInstallmentPlan({ member_id: m.ismail, branch_id: a }),
    sukru: await d.insertInstallmentPlan({
      member_id: m.sukru,
      branch_id: p.branch.sukru,
      status: 'Tamamlandı',
      total_amount: 500,
    }),
  };
  for (const [amount, is_paid] of [
    [1000, 1],
    [750.25, 1],
    [1249.75, 0],
  ] as const) {
    await d.insertInstallment({ plan_id: plan.ismail, amount, is_paid });
  }
  return { tx, plan };
}

async function seedActivity(d: LegacyDashboard, p: Places, c: Catalogue, m: Members) {
  const a = p.branch.ismail;
  const memberPackage = {
    active: await d.insertMemberPackage({
      member_id: m.ismail,
      package_id: c.pkg.monthly,
      branch_id: a,
    }),
    frozen: await d.insertMemberPackage({
      member_id: m.ismail,
      package_id: c.pkg.passive,
      branch_id: a,
      status: 'Donduruldu',
      start_date: '2026-01-01',
      end_date: '2026-01-31',
    }),
  };
  const note = (branch_id: number | null, type: string, created_at: string, is_read = 0) =>
    d.insertNotification({ branch_id, type, created_at, is_read, title: `${type} başlık` });
  const notification = {
    n1: await note(a, 'Uyarı', '2026-11-01 10:00:00'),
    n2: await note(null, 'Sistem', '2026-11-02 10:00:00', 1),
    n3: await note(p.branch.sukru, 'Ödeme', '2026-11-02 10:00:00'),
  };
  const lesson = (member_id: number, package_id: number, remaining_lessons = 10) =>
    d.insertPrivateLesson({ member_id, package_id, remaining_lessons, trainer_id: p.staff.ismail });
  const privateLesson = {
    ismail: await lesson(m.ismail, c.pkg.monthly, 4),
    deniz: await lesson(m.deniz, c.pkg.passive),
    sukru: await lesson(m.sukru, c.pkg.monthly),
  };
  const presence = {
    lateEntry: await d.insertPresence({
      member_id: m.ismail,
      branch_id: a,
      entry_time: '2026-11-20 23:59:00',
    }),
    afterMidnight: await d.insertPresence({
      member_id: m.deniz,
      branch_id: a,
      entry_time: '2026-11-21 00:00:00',
      exit_time: '2026-11-21 01:00:00',
      direction: 'Çıkış',
      access_method: 'Kart',
    }),
    otherBranch: await d.insertPresence({
      member_id: m.sukru,
      branch_id: p.branch.sukru,
      entry_time: '2026-11-20 00:00:00',
      access_method: 'Parmak İzi',
    }),
  };
  return { memberPackage, notification, privateLesson, presence };
}

export async function seedReadFixture(d: LegacyDashboard) {
  const places = await seedPlaces(d);
  const catalogue = await seedCatalogue(d);
  const member = await seedMembers(d, places.branch);
  const money = await seedMoney(d, places, member);
  const activity = await seedActivity(d, places, catalogue, member);
  return { ...places, ...catalogue, member, ...money, ...activity };
}

export interface ReadFixture {
  ids: FixtureIds;
  /** GET a path under /api/v1 as an unbound client holding every scope. */
  get: (path: string) => ReturnType<typeof getJson>;
  close: () => Promise<void>;
}

export async function startReadFixture(): Promise<ReadFixture> {
  const env: TestEnvironment = await createTestEnvironment();
  let gateway: RunningGateway | undefined;
  const close = async () => {
    await gateway?.close();
    await env.destroy();
  };
  try {
    const dashboard = await LegacyDashboard.connect(env.legacyUrl);
    const ids = await seedReadFixture(dashboard).finally(() => dashboard.close());
    await syncOnce(env);
    gateway = await startGateway(env, NO_RATE_LIMIT);
    const url = gateway.url;
    const token = await issueToken(
      gateway,
      await createTestClient(gateway.db, { scopes: [...SCOPES] }),
    );
    return { ids, get: (path) => getJson(`${url}/api/v1${path}`, bearer(token)), close };
  } catch (error) {
    await close();
    throw error;
  }
}
