import { z } from 'zod';
import { personal } from '../data-classes.js';
import { defineResource } from '../resource.js';

export const TRANSACTION_TYPES = ['Gelir', 'Gider'] as const;
export const PAYMENT_METHODS = ['Nakit', 'Kredi Kartı', 'Havale/EFT', 'Bakiye'] as const;
export const INSTALLMENT_PLAN_STATUSES = ['Aktif', 'Tamamlandı', 'İptal'] as const;

const oneOf = (values: readonly string[]) =>
  z.string().meta({ description: `One of: ${values.join(', ')}.` });

export const transactionResource = defineResource(
  'FinancialTransaction',
  {
    id: z.int(),
    member_id: z.int().nullable(),
    transaction_type: oneOf(TRANSACTION_TYPES),
    transaction_code: oneOf([
      'PAKET_SATIS',
      'MARKET_SATIS',
      'TAKSIT_TAHSILAT',
      'OZEL_DERS',
      'IADE',
      'GIDER',
    ]),
    reference_id: z.int().nullable(),
    reference_table: z.string().nullable(),
    amount: z.number(),
    // The member's balance around the transaction.
    balance_before: personal('finance', z.number()),
    balance_after: personal('finance', z.number()),
    payment_method: oneOf(PAYMENT_METHODS),
    description: z.string(),
    staff_name: personal('staff', z.string().nullable()),
    staff_id: z.int().nullable(),
    branch_id: z.int(),
    transaction_date: z.iso.datetime(),
    is_active: z.boolean(),
    is_cancelled: z.boolean(),
    cancelled_at: z.iso.datetime().nullable(),
    cancel_reason: z.string().nullable(),
    cancelled_by: z.int().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  },
  {
    id: 88213,
    member_id: 1042,
    transaction_type: 'Gelir',
    transaction_code: 'PAKET_SATIS',
    reference_id: 5120,
    reference_table: 'member_packages',
    amount: 4500,
    balance_before: 250,
    balance_after: 250,
    payment_method: 'Kredi Kartı',
    description: '3 Aylık Fitness paket satışı',
    staff_name: 'Zeynep Kaya',
    staff_id: 12,
    branch_id: 3,
    transaction_date: '2026-03-01T08:05:00.000Z',
    is_active: true,
    is_cancelled: false,
    cancelled_at: null,
    cancel_reason: null,
    cancelled_by: null,
    created_at: '2026-03-01T08:05:00.000Z',
    updated_at: '2026-03-01T08:05:00.000Z',
  },
);

export const installmentPlanResource = defineResource(
  'InstallmentPlan',
  {
    id: z.int(),
    member_id: z.int(),
    member_name: z.string(),
    branch_id: z.int(),
    status: oneOf(INSTALLMENT_PLAN_STATUSES),
    total_amount: z.number(),
    collected_amount: z.number(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  },
  {
    id: 310,
    member_id: 1042,
    member_name: 'Ayşe Yılmaz',
    branch_id: 3,
    status: 'Aktif',
    total_amount: 6000,
    collected_amount: 2000,
    created_at: '2026-01-10T09:00:00.000Z',
    updated_at: '2026-03-10T09:00:00.000Z',
  },
);
