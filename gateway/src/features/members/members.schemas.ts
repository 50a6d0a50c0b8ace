import { z } from 'zod';
import { paginationQuery, paginationSchema } from '../../http/pagination.js';

export const memberSchema = z
  // The specification allows additional properties on every resource.
  .looseObject({
    id: z.int(),
    full_name: z.string(),
    surname: z.string().nullable(),
    phone: z.string(),
    email: z.string().nullable(),
    tc_no: z.string().nullable(),
    member_no: z.string(),
    gender: z.enum(['Erkek', 'Kadın']).nullable(),
    birth_date: z.iso.date().nullable(),
    branch_id: z.int(),
    branch_name: z.string(),
    entry_status: z.boolean(),
    balance: z.number(),
    freeze_status: z.boolean(),
    status: z
      .enum(['Aktif', 'Pasif'])
      .meta({ description: 'Not in the specification: the dashboard status.' }),
    registered_at: z.iso.datetime(),
    address: z.string().nullable(),
    qr_code: z.string(),
    referral_code: z.string().nullable(),
    created_at: z.iso.datetime(),
    updated_at: z.iso.datetime(),
  })
  .meta({ id: 'Member' });
export type Member = z.infer<typeof memberSchema>;

const optionalInt = z.coerce.number().int().positive().max(2_147_483_647).optional();

export const listMembersQuery = paginationQuery.extend({
  search: z.string().trim().min(1).max(100).optional(),
  branch_id: optionalInt,
  status: z.enum(['active', 'passive']).optional(),
});
export type ListMembersQuery = z.infer<typeof listMembersQuery>;

export const memberIdParams = z.object({
  id: z.coerce.number().int().positive().max(2_147_483_647),
});

export const memberListResponse = z
  .strictObject({ success: z.boolean(), data: z.array(memberSchema), pagination: paginationSchema })
  .meta({ id: 'MemberListResponse' });
export const memberResponse = z
  .object({ success: z.boolean(), data: memberSchema })
  .meta({ id: 'MemberResponse' });
