// The generated club's money: transactions (income, expenses, sales, refunds) and installment
// plans with their installments, drawn after the members (generate-data.ts).
import { dayOf, wallClock, YEAR, type Drawn, type Row } from './draws.js';

const TRANSACTION_CODES = [
  'PAKET_SATIS',
  'MARKET_SATIS',
  'TAKSIT_TAHSILAT',
  'OZEL_DERS',
  'IADE',
  'GIDER',
];

export function transactionRows({
  rnd,
  now,
  branchCount,
  memberCount,
  staffCount,
  memberBranch,
}: Drawn) {
  return Array.from({ length: Math.round(memberCount * 3) }, (_, i) => {
    const code = rnd.pick(TRANSACTION_CODES);
    const expense = code === 'GIDER' || code === 'IADE';
    const memberId = code === 'GIDER' ? null : rnd.int(1, memberCount);
    const at = wallClock(now, rnd.int(0, YEAR));
    const cancelled = rnd.chance(0.03);
    return {
      id: i + 1,
      member_id: memberId,
      transaction_type: expense ? 'Gider' : 'Gelir',
      transaction_code: code,
      reference_id: null,
      reference_table: null,
      amount: (rnd.int(1000, 500000) / 100).toFixed(2),
      balance_before: '0.00',
      balance_after: '0.00',
      payment_method: rnd.pick(['Nakit', 'Kredi Kartı', 'Havale/EFT', 'Bakiye']),
      description: `${code} işlemi`,
      staff_id: rnd.chance(0.9) ? rnd.int(1, staffCount) : null,
      branch_id: memberId ? memberBranch[memberId] : rnd.int(1, branchCount),
      transaction_date: at,
      is_active: 1,
      is_cancelled: cancelled ? 1 : 0,
      cancelled_at: cancelled ? at : null,
      cancel_reason: cancelled ? 'Hatalı giriş' : null,
      cancelled_by: cancelled ? 1 : null,
      created_at: at,
      updated_at: at,
    };
  });
}

/** Installment plans and their installments, drawn plan by plan. */
export function installmentRows({ rnd, now, memberCount, memberBranch }: Drawn) {
  const planCount = Math.round(memberCount / 6);
  const plans: Row[] = [];
  const installments: Row[] = [];
  for (let id = 1; id <= planCount; id++) {
    const memberId = rnd.int(1, memberCount);
    const created = wallClock(now, rnd.int(0, YEAR));
    const parts = rnd.int(2, 6);
    const amount = rnd.int(5, 40) * 100;
    plans.push({
      id,
      member_id: memberId,
      branch_id: memberBranch[memberId],
      status: rnd.pick(['Aktif', 'Aktif', 'Tamamlandı', 'İptal']),
      total_amount: (amount * parts).toFixed(2),
      created_at: created,
      updated_at: created,
    });
    for (let k = 0; k < parts; k++) {
      const paid = rnd.chance(0.5);
      const due = dayOf(wallClock(now, rnd.int(-YEAR / 2, YEAR / 2)));
      installments.push({
        id: installments.length + 1,
        plan_id: id,
        due_date: due,
        amount: amount.toFixed(2),
        is_paid: paid ? 1 : 0,
        paid_at: paid ? created : null,
        created_at: created,
        updated_at: created,
      });
    }
  }
  return { plans, installments };
}
