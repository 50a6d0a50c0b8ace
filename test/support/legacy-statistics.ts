// The statistics computed independently of the gateway: plain SQL over the legacy tables, on a
// connection with the dashboard's session time zone (+03:00), so CURDATE() is the Istanbul day.
// Definitions as the dashboard has them: income and expense are non-cancelled, active Gelir and
// Gider rows counted on their transaction_date; an active package has status Aktif and ends today
// or later; members are the live ones (is_deleted = 0). Money stays DECIMAL until the very end.
import type { LegacyDashboard } from './legacy-dashboard.js';

/** Istanbul calendar days around now, as YYYY-MM-DD, from the database's own clock. */
export interface Calendar {
  today: string;
  yesterday: string;
  tomorrow: string;
  monthStart: string;
  monthEnd: string;
  /** The last day of the previous month. */
  previousMonthEnd: string;
}

export interface Money {
  transactions: number;
  income: number;
  expense: number;
  net: number;
}

type Row = Record<string, string | number | bigint | null>;

const day = (expression: string) => `DATE_FORMAT(${expression}, '%Y-%m-%d')`;
const onBranch = (column: string, branch: number | null) =>
  branch === null ? { sql: '', params: [] } : { sql: ` AND ${column} = ?`, params: [branch] };

export class LegacyStatistics {
  constructor(private readonly dashboard: LegacyDashboard) {}

  private async one(sql: string, params: unknown[] = []): Promise<Row> {
    const [row] = await this.dashboard.query<Row>(sql, params);
    return row!;
  }

  private async count(sql: string, params: unknown[]): Promise<number> {
    return Number((await this.one(sql, params)).n);
  }

  async calendar(): Promise<Calendar> {
    const month = "DATE_FORMAT(CURDATE(), '%Y-%m-01')";
    const row = await this.one(
      `SELECT ${day('CURDATE()')} AS today, ${day('CURDATE() - INTERVAL 1 DAY')} AS yesterday,
        ${day('CURDATE() + INTERVAL 1 DAY')} AS tomorrow, ${day(month)} AS monthStart,
        ${day('LAST_DAY(CURDATE())')} AS monthEnd,
        ${day(`${month} - INTERVAL 1 DAY`)} AS previousMonthEnd`,
    );
    return row as unknown as Calendar;
  }

  /** Transactions dated within the Istanbul days [from, to] (either end open when null). */
  async money(branch: number | null, from: string | null, to: string | null): Promise<Money> {
    const where = onBranch('branch_id', branch);
    const income = "COALESCE(SUM(CASE WHEN transaction_type = 'Gelir' THEN amount END), 0)";
    const expense = "COALESCE(SUM(CASE WHEN transaction_type = 'Gider' THEN amount END), 0)";
    const row = await this.one(
      `SELECT COUNT(*) AS n, ${income} AS income, ${expense} AS expense,
         ${income} - ${expense} AS net
       FROM financial_transactions
       WHERE is_cancelled = 0 AND is_active = 1
         AND (? IS NULL OR transaction_date >= CAST(? AS DATE))
         AND (? IS NULL OR transaction_date < CAST(? AS DATE) + INTERVAL 1 DAY)${where.sql}`,
      [from, from, to, to, ...where.params],
    );
    // DECIMAL arrives as its exact decimal text; the API's number must be that very value.
    return {
      transactions: Number(row.n),
      income: Number(row.income),
      expense: Number(row.expense),
      net: Number(row.net),
    };
  }

  monthMoney(branch: number | null, calendar: Calendar) {
    return this.money(branch, calendar.monthStart, calendar.monthEnd);
  }

  members(branch: number | null, condition = 'TRUE') {
    const where = onBranch('branch_id', branch);
    return this.count(
      `SELECT COUNT(*) AS n FROM members WHERE is_deleted = 0 AND ${condition}${where.sql}`,
      where.params,
    );
  }

  activeMembers = (branch: number | null) => this.members(branch, "status = 'Aktif'");
  registeredToday = (branch: number | null) =>
    this.members(branch, 'DATE(registered_at) = CURDATE()');

  activePackages(branch: number | null) {
    const where = onBranch('branch_id', branch);
    return this.count(
      `SELECT COUNT(*) AS n FROM member_packages
       WHERE status = 'Aktif' AND end_date >= CURDATE()${where.sql}`,
      where.params,
    );
  }

  activeBranches(branch: number | null) {
    const where = onBranch('id', branch);
    return this.count(
      `SELECT COUNT(*) AS n FROM branches WHERE status = 'Aktif'${where.sql}`,
      where.params,
    );
  }

  async branchStats(branch: number, calendar: Calendar) {
    return {
      total_members: await this.members(branch),
      active_members: await this.activeMembers(branch),
      active_packages: await this.activePackages(branch),
      monthly_revenue: (await this.monthMoney(branch, calendar)).income,
    };
  }

  async dashboardStats(branch: number | null, calendar: Calendar) {
    return {
      total_members: await this.members(branch),
      active_members: await this.activeMembers(branch),
      monthly_revenue: (await this.monthMoney(branch, calendar)).income,
      active_branches: await this.activeBranches(branch),
    };
  }

  async dashboardDaily(branch: number | null, calendar: Calendar) {
    const today = await this.money(branch, calendar.today, calendar.today);
    return {
      new_members_today: await this.registeredToday(branch),
      today_revenue: today.income,
      today_transactions: today.transactions,
    };
  }

  async financialSummary(branch: number | null, from: string | null, to: string | null) {
    const money = await this.money(branch, from, to);
    return {
      total_transactions: money.transactions,
      total_income: money.income,
      total_expense: money.expense,
      net_amount: money.net,
    };
  }
}
