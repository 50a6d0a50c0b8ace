import { z } from 'zod';
import { personal } from '../data-classes.js';
import { defineResource } from '../resource.js';

export const memberResource = defineResource(
  'Member',
  {
    id: z.int(),
    full_name: z.string(),
    surname: z.string().nullable(),
    phone: personal('contact', z.string()),
    email: personal('contact', z.string().nullable()),
    tc_no: personal('identity', z.string().nullable()),
    member_no: z.string(),
    gender: personal('identity', z.enum(['Erkek', 'Kadın']).nullable()),
    birth_date: personal('identity', z.iso.date().nullable()),
    branch_id: z.int(),
    branch_name: z.string(),
    entry_status: z.boolean(),
    balance: personal('finance', z.number()),
    freeze_status: z.boolean(),
    status: z
      .enum(['Aktif', 'Pasif'])
      .meta({ description: 'Not in the specification: the dashboard status.' }),
    registered_at: z.iso.datetime(),
    address: personal('address', z.string().nullable()),
    // It opens the club's doors.
    qr_code: personal('access', z.string()),
    referral_code: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  },
  {
    id: 1042,
    full_name: 'Ayşe Yılmaz',
    surname: 'Yılmaz',
    phone: '5321234567',
    email: 'ayse.yilmaz@example.com',
    tc_no: null,
    member_no: 'UY-1042',
    gender: 'Kadın',
    birth_date: '1991-04-23',
    branch_id: 3,
    branch_name: 'Kadıköy',
    entry_status: false,
    balance: 250,
    freeze_status: false,
    status: 'Aktif',
    registered_at: '2025-09-01T06:15:00.000Z',
    address: 'Moda Cd. 12, Kadıköy, İstanbul',
    qr_code: 'QR-1042-7F3A',
    referral_code: null,
    created_at: '2025-09-01T06:15:00.000Z',
    updated_at: '2026-03-14T07:30:00.000Z',
  },
  { subject: 'id' },
);

export const MEMBER_PACKAGE_STATUSES = [
  'Aktif',
  'Pasif',
  'Donduruldu',
  'Süresi Doldu',
  'İptal',
] as const;

export const memberPackageResource = defineResource(
  'MemberPackage',
  {
    id: z.int(),
    member_id: z.int(),
    package_id: z.int(),
    branch_id: z.int(),
    package_type_name: z.string(),
    start_date: z.iso.date(),
    end_date: z.iso.date(),
    status: z.enum(MEMBER_PACKAGE_STATUSES),
  },
  {
    id: 5120,
    member_id: 1042,
    package_id: 7,
    branch_id: 3,
    package_type_name: '3 Aylık Fitness',
    start_date: '2026-03-01',
    end_date: '2026-05-31',
    status: 'Aktif',
  },
);
